/** A message in the corner: an error from the server (with what to do) or a confirmation. */
export interface Toast {
  id: number;
  tone: 'error' | 'info';
  title: string;
  message?: string | undefined;
  hint?: string | undefined;
}

/**
 * The page's toasts. Errors stay until dismissed, so a refusal from the server is never lost
 * because the user looked away; confirmations leave by themselves.
 */
export class Toaster {
  #toasts = $state<Toast[]>([]);
  #nextId = 1;

  constructor(private readonly infoMs = 4000) {}

  /** Oldest first. */
  get toasts(): readonly Toast[] {
    return this.#toasts;
  }

  show(toast: Omit<Toast, 'id'>): number {
    const id = this.#nextId++;
    this.#toasts.push({ ...toast, id });
    // Beyond a handful, the oldest go: a storm of identical errors must not bury the page.
    if (this.#toasts.length > 4) this.#toasts.splice(0, this.#toasts.length - 4);
    if (toast.tone === 'info') setTimeout(() => this.dismiss(id), this.infoMs);
    return id;
  }

  dismiss(id: number): void {
    const index = this.#toasts.findIndex((toast) => toast.id === id);
    if (index !== -1) this.#toasts.splice(index, 1);
  }
}
