import type { SessionInfo } from '@interthought/protocol';
import type { I18n } from '$lib/i18n/index.js';

const APP_NAME = 'Interthought';

export interface TabTitleInput {
  /** The open session, if a session page is open. */
  open?: Pick<SessionInfo, 'sessionId' | 'task' | 'status'> | null | undefined;
  /** The sessions the rail lists (their latest statuses). */
  listed: readonly Pick<SessionInfo, 'sessionId' | 'status'>[];
  /** Whether this page may decide the open session's waiting call (a share link's viewer may not). */
  decides?: boolean;
}

/**
 * The browser tab's title. A session waiting for the user's decision says so first, so a user in
 * another tab notices: "⏸ Waiting for you · <task>" for the open one, "⏸ 2 sessions wait for
 * you · …" for others in the list.
 */
export function tabTitle(i18n: I18n, { open, listed, decides = true }: TabTitleInput): string {
  if (open?.status === 'waiting' && decides) return i18n.t('title.waiting', { task: open.task });
  const othersWaiting = listed.filter((session) => session.status === 'waiting' && session.sessionId !== open?.sessionId).length;
  const parts = [open?.task ? open.task : '', APP_NAME].filter(Boolean);
  if (othersWaiting > 0) parts.unshift(i18n.t('title.othersWaiting', { count: othersWaiting }));
  return parts.join(' · ');
}
