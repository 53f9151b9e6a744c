import type { SessionsChanged, SessionsRemoved } from '@interthought/protocol';

/** A change of the list of sessions. */
export type ListChange = SessionsChanged | SessionsRemoved;

/**
 * How list changes reach the list watchers of every process (a port of the core). Without one, the
 * core tells its own watchers; a cluster publishes each change to every node, this one included,
 * and each node's core tells its watchers what arrives.
 */
export interface ListRelay {
  publish(change: ListChange): void;
  /** The typed hook the core sets once: a change published by any node (`frame` is its serialisation). */
  receive(listener: (change: ListChange, frame: string) => void): void;
}
