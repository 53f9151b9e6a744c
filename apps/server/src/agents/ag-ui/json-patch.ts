import type { JsonPatchOperation } from '@ag-ui/core';

/*
 * The agent's state follows its STATE_DELTA events (RFC 6902 JSON Patch) so the next run can send
 * it back. A patch that cannot apply leaves the state as it was: the AG-UI spec has a consumer
 * warn and keep its state rather than fail the run.
 */

function unescape(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`bad pointer ${pointer}`);
  return pointer.slice(1).split('/').map(unescape);
}

function get(doc: unknown, path: string[]): unknown {
  let at = doc;
  for (const token of path) {
    if (typeof at !== 'object' || at === null || !(token in at)) throw new Error('no such path');
    at = (at as Record<string, unknown>)[token];
  }
  return at;
}

function parentOf(doc: unknown, path: string[]): [Record<string, unknown> | unknown[], string] {
  const parent = get(doc, path.slice(0, -1));
  if (typeof parent !== 'object' || parent === null) throw new Error('no such parent');
  return [parent as Record<string, unknown>, path[path.length - 1]!];
}

function put(doc: unknown, path: string[], value: unknown, insert: boolean): unknown {
  if (path.length === 0) return value;
  const [parent, key] = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new Error('bad index');
    if (insert) parent.splice(index, 0, value);
    else parent[index] = value;
  } else {
    parent[key] = value;
  }
  return doc;
}

function remove(doc: unknown, path: string[]): unknown {
  const [parent, key] = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else if (key in parent) delete parent[key];
  else throw new Error('no such path');
  return doc;
}

/** The state after `patch`, or the state before it when an operation cannot apply. */
export function applyPatch(state: unknown, patch: readonly JsonPatchOperation[]): unknown {
  let doc = structuredClone(state);
  try {
    for (const op of patch) {
      const path = tokens(op.path);
      switch (op.op) {
        case 'add':
          doc = put(doc, path, structuredClone(op.value), true);
          break;
        case 'replace':
          get(doc, path);
          doc = put(doc, path, structuredClone(op.value), false);
          break;
        case 'remove':
          doc = remove(doc, path);
          break;
        case 'move': {
          const from = tokens(op.from);
          const value = get(doc, from);
          doc = put(remove(doc, from), path, value, true);
          break;
        }
        case 'copy':
          doc = put(doc, path, structuredClone(get(doc, tokens(op.from))), true);
          break;
        case 'test':
          if (JSON.stringify(get(doc, path)) !== JSON.stringify(op.value)) throw new Error('test failed');
          break;
      }
    }
    return doc;
  } catch {
    return state;
  }
}
