/** A piece of assistant content: reasoning (inside `<think>…</think>`) or ordinary text. */
export interface ContentSegment {
  kind: 'reasoning' | 'text';
  text: string;
}

const OPEN_TAG = '<think>';
const CLOSE_TAG = '</think>';

/**
 * Separates `<think>…</think>` reasoning from ordinary text in streamed content, as models
 * served raw (DeepSeek-R1 distills, QwQ, Qwen3 on Ollama or llama.cpp) send it. A tag may be
 * split across chunks, so the tail that could still become a tag is held back until the next chunk.
 */
export class ThinkTagSplitter {
  #inside = false;
  #held = '';

  /** Feed one content chunk; returns what can be classified so far, in order. */
  push(chunk: string): ContentSegment[] {
    const segments: ContentSegment[] = [];
    let pending = this.#held + chunk;
    this.#held = '';
    for (;;) {
      const tag = this.#inside ? CLOSE_TAG : OPEN_TAG;
      const at = pending.indexOf(tag);
      if (at >= 0) {
        this.#emit(segments, pending.slice(0, at));
        this.#inside = !this.#inside;
        pending = pending.slice(at + tag.length);
        continue;
      }
      const keep = partialTagLength(pending, tag);
      this.#emit(segments, pending.slice(0, pending.length - keep));
      this.#held = pending.slice(pending.length - keep);
      return segments;
    }
  }

  /** The stream ended: whatever was held back was not a tag after all. */
  flush(): ContentSegment[] {
    const segments: ContentSegment[] = [];
    this.#emit(segments, this.#held);
    this.#held = '';
    return segments;
  }

  #emit(segments: ContentSegment[], text: string): void {
    if (text) segments.push({ kind: this.#inside ? 'reasoning' : 'text', text });
  }
}

/** The length of the longest end of `text` that is a start of `tag` (it may complete in the next chunk). */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
