/**
 * Text is well-formed Unicode: a UTF-16 surrogate that is not half of a pair cannot be stored as
 * UTF-8 without being replaced, so a frame that carries one is refused at the edge rather than
 * altered silently (PROTOCOL.md §15 "Text"). One pass, constant lookaround: linear in the text.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` has no lone surrogate (what `String.prototype.isWellFormed` answers, on every runtime). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** A JSON text can only smuggle a lone surrogate in as a `\uD800`–`\uDFFF` escape (or as a raw string given to the parser). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether the JSON text (already decoded) may hold an ill-formed string once parsed: a cheap test before the walk. */
export function mayHoldLoneSurrogate(json: string): boolean {
  return SURROGATE_ESCAPE.test(json) || !isWellFormedText(json);
}

interface Visit {
  value: unknown;
  key: string | number | undefined;
  parent: Visit | undefined;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The path of the first string (a value or a key) in `value` that is not well-formed, or
 * undefined. Iterative, and a path is built only for the string it names, so a deeply nested
 * frame can neither overflow the stack nor cost more than one visit per node.
 */
export function findIllFormedText(value: unknown): (string | number)[] | undefined {
  const stack: Visit[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === 'string') {
      if (!isWellFormedText(current)) return pathOf(visit);
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) stack.push({ value: current[index], key: index, parent: visit });
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        if (!isWellFormedText(key)) return [...pathOf(visit), key];
        stack.push({ value: child, key, parent: visit });
      }
    }
  }
  return undefined;
}
