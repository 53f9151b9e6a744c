import type { StepKind } from '@interthought/protocol';

/** How one icon is drawn. Rectangles and circles are written as paths, so every icon is a list of paths. */
export interface IconDrawing {
  /** Path data in a square box of this side (16 unless said). */
  paths: readonly string[];
  box?: number;
  /** Filled with the text colour; otherwise outlined with a stroke of `strokeWidth`. */
  filled?: boolean;
  strokeWidth?: number;
  /** Round line ends and corners (the open strokes of arrows, crosses and chevrons). */
  round?: boolean;
}

/** Each step kind's icon in the timeline, named after the kind so a step can show `<Icon name={kind} />`. */
const STEP_KIND_ICONS = {
  thought: {
    paths: [
      'M8 1.8c2.6 0 4.5 1.9 4.5 4.3 0 1.6-.9 2.7-1.8 3.5-.5.4-.7.9-.7 1.5v.4H6v-.4c0-.6-.2-1.1-.7-1.5-.9-.8-1.8-1.9-1.8-3.5C3.5 3.7 5.4 1.8 8 1.8Z',
      'M6.3 13.6h3.4',
    ],
    strokeWidth: 1.5,
    round: true,
  },
  action: { paths: ['M2.5 8h9', 'M8.5 4.5 12 8l-3.5 3.5', 'M13.5 3.5v9'], strokeWidth: 1.5, round: true },
  tool_call: {
    paths: ['M9.8 2.4a3.2 3.2 0 0 0-3.6 4.3L2.4 10.5a1.5 1.5 0 0 0 2.1 2.1l3.8-3.8a3.2 3.2 0 0 0 4.3-3.6l-2 2-1.8-.4-.4-1.8 2-2Z'],
    strokeWidth: 1.5,
    round: true,
  },
  observation: {
    paths: ['M1.5 8S3.8 3.5 8 3.5 14.5 8 14.5 8 12.2 12.5 8 12.5 1.5 8 1.5 8Z', 'M6 8a2 2 0 1 0 4 0a2 2 0 1 0 -4 0Z'],
    strokeWidth: 1.5,
    round: true,
  },
  final_answer: { paths: ['M2 8a6 6 0 1 0 12 0a6 6 0 1 0 -12 0Z', 'm5.3 8.2 1.8 1.8 3.6-3.7'], strokeWidth: 1.5, round: true },
  // A speech bubble: what the user said.
  user_message: { paths: ['M3 3h10a1.5 1.5 0 0 1 1.5 1.5v5a1.5 1.5 0 0 1 -1.5 1.5H7l-3 2.5V11H3a1.5 1.5 0 0 1 -1.5 -1.5v-5A1.5 1.5 0 0 1 3 3Z'], strokeWidth: 1.5, round: true },
} satisfies Record<StepKind, IconDrawing>;

/** Every icon the app draws, by name. */
export const ICON_PATHS = {
  ...STEP_KIND_ICONS,
  'arrow-down': { paths: ['M8 3v10M3.5 8.5 8 13l4.5-4.5'], strokeWidth: 1.7, round: true },
  'arrow-right': { paths: ['M3 8h10M9 4l4 4-4 4'], strokeWidth: 1.8, round: true },
  check: { paths: ['m3.5 8.5 3 3 6-7'], strokeWidth: 1.7, round: true },
  'chevron-right': { paths: ['m6 4 4 4-4 4'], strokeWidth: 1.6, round: true },
  'chevron-up': { paths: ['m4 10 4-4 4 4'], strokeWidth: 1.6, round: true },
  'chevron-down': { paths: ['m4 6 4 4 4-4'], strokeWidth: 1.7, round: true },
  search: { paths: ['M7 2.8a4.2 4.2 0 1 0 0 8.4a4.2 4.2 0 1 0 0-8.4Z', 'M10.2 10.2 13.5 13.5'], strokeWidth: 1.6, round: true },
  close: { paths: ['m4 4 8 8M12 4l-8 8'], strokeWidth: 1.7, round: true },
  /** Down into a tray: export (a download). */
  download: { paths: ['M8 2.5v7.5M4.8 7 8 10.2 11.2 7', 'M2.5 11.5v1.5h11v-1.5'], strokeWidth: 1.5, round: true },
  /** A branch leaving the trunk: fork a new session from a step. */
  fork: {
    paths: [
      'M3.6 3.5a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0Z',
      'M3.6 12.5a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0Z',
      'M9.6 4.5a1.4 1.4 0 1 0 2.8 0a1.4 1.4 0 1 0 -2.8 0Z',
      'M5 4.9v6.2',
      'M11 5.9c0 3-6 2.2-6 5.2',
    ],
    strokeWidth: 1.4,
    round: true,
  },
  /** One line splitting into parallel ones: sub-agents at work side by side. */
  subagents: {
    paths: ['M2.5 8h3', 'M5.5 8c2 0 2-4 4-4h4', 'M5.5 8h8', 'M5.5 8c2 0 2 4 4 4h4'],
    strokeWidth: 1.4,
    round: true,
  },
  // Three dots: more actions, in a menu.
  more: {
    paths: ['M2.6 8a1.1 1.1 0 1 0 2.2 0a1.1 1.1 0 1 0 -2.2 0Z', 'M6.9 8a1.1 1.1 0 1 0 2.2 0a1.1 1.1 0 1 0 -2.2 0Z', 'M11.2 8a1.1 1.1 0 1 0 2.2 0a1.1 1.1 0 1 0 -2.2 0Z'],
    filled: true,
  },
  copy: {
    paths: [
      'M7.1 5.5h4.8a1.6 1.6 0 0 1 1.6 1.6v4.8a1.6 1.6 0 0 1 -1.6 1.6h-4.8a1.6 1.6 0 0 1 -1.6 -1.6v-4.8a1.6 1.6 0 0 1 1.6 -1.6Z',
      'M10.5 3.5v-.4A1.6 1.6 0 0 0 8.9 1.5H4.1a1.6 1.6 0 0 0-1.6 1.6v4.8a1.6 1.6 0 0 0 1.6 1.6h.4',
    ],
    strokeWidth: 1.4,
  },
  keyboard: {
    paths: [
      'M3 4h10a1.5 1.5 0 0 1 1.5 1.5v5.5a1.5 1.5 0 0 1 -1.5 1.5h-10a1.5 1.5 0 0 1 -1.5 -1.5v-5.5a1.5 1.5 0 0 1 1.5 -1.5Z',
      'M4 7h1M7 7h1M10 7h2M4.5 9.8h7',
    ],
    strokeWidth: 1.4,
    round: true,
  },
  /** The access panel's padlock. */
  lock: {
    box: 24,
    paths: [
      'M7.2 10.5h9.6a2.2 2.2 0 0 1 2.2 2.2v5.1a2.2 2.2 0 0 1 -2.2 2.2h-9.6a2.2 2.2 0 0 1 -2.2 -2.2v-5.1a2.2 2.2 0 0 1 2.2 -2.2Z',
      'M8.5 10.5V8a3.5 3.5 0 0 1 7 0v2.5M12 14.5v2',
    ],
    strokeWidth: 1.6,
    round: true,
  },
  /** Two chain links: a share link. */
  link: {
    paths: ['M6.8 9.2a2.6 2.6 0 0 0 3.7 0l2.3-2.3a2.6 2.6 0 0 0 -3.7 -3.7l-.9.9', 'M9.2 6.8a2.6 2.6 0 0 0 -3.7 0l-2.3 2.3a2.6 2.6 0 0 0 3.7 3.7l.9-.9'],
    strokeWidth: 1.5,
    round: true,
  },
  /** An eye: watching a shared session without editing it. */
  eye: {
    paths: ['M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8s-2.4 4.5-6.5 4.5S1.5 8 1.5 8Z', 'M6 8a2 2 0 1 0 4 0a2 2 0 1 0 -4 0Z'],
    strokeWidth: 1.4,
    round: true,
  },
  /** A door with an arrow out: sign out. */
  'sign-out': { paths: ['M6.5 2.5h-3a1 1 0 0 0 -1 1v9a1 1 0 0 0 1 1h3', 'M10.5 5 13.5 8l-3 3M13.5 8H6'], strokeWidth: 1.5, round: true },
  /** A short list: the folded row of superseded steps. */
  /** A stop sign: a breakpoint stopped the run here (PROTOCOL.md §25.5). */
  breakpoint: { paths: ['M5.6 2.5h4.8l3.1 3.1v4.8l-3.1 3.1H5.6l-3.1-3.1V5.6Z'], filled: true },
  lines: { paths: ['M3 5h10M3 8h10M3 11h6'], strokeWidth: 1.6, round: true },
  /** A magnifier with a minus: nothing found. */
  'not-found': { box: 24, paths: ['M4 11a7 7 0 1 0 14 0a7 7 0 1 0 -14 0Z', 'm20 20-3.5-3.5M8.5 11h5'], strokeWidth: 1.6, round: true },
  pause: {
    paths: [
      'M4.5 2.5h1a1 1 0 0 1 1 1v9a1 1 0 0 1 -1 1h-1a1 1 0 0 1 -1 -1v-9a1 1 0 0 1 1 -1Z',
      'M10.5 2.5h1a1 1 0 0 1 1 1v9a1 1 0 0 1 -1 1h-1a1 1 0 0 1 -1 -1v-9a1 1 0 0 1 1 -1Z',
    ],
    filled: true,
  },
  pencil: { paths: ['M11.5 2.5l2 2L6 12l-3 1 1-3 7.5-7.5Z'], strokeWidth: 1.6, round: true },
  play: { paths: ['M4.5 2.8v10.4a.6.6 0 0 0 .9.5l8.3-5.2a.6.6 0 0 0 0-1L5.4 2.3a.6.6 0 0 0-.9.5Z'], filled: true },
  plus: { paths: ['M8 3v10M3 8h10'], strokeWidth: 1.8, round: true },
  /** An arrow up: send a message. */
  send: { paths: ['M8 13V3.5M3.8 7.5 8 3.3l4.2 4.2'], strokeWidth: 1.8, round: true },
  /** Up out of a tray: import a file. */
  upload: { paths: ['M8 10V2.7M4.8 5.7 8 2.5l3.2 3.2', 'M2.5 11.5v1.5h11v-1.5'], strokeWidth: 1.5, round: true },
  /** A panel with its left column: opening and closing the rail. */
  sidebar: { paths: ['M4 2.5h8a2 2 0 0 1 2 2v7a2 2 0 0 1 -2 2h-8a2 2 0 0 1 -2 -2v-7a2 2 0 0 1 2 -2Z', 'M6 2.5v11'], strokeWidth: 1.5 },
  stop: { paths: ['M5 3h6a2 2 0 0 1 2 2v6a2 2 0 0 1 -2 2h-6a2 2 0 0 1 -2 -2v-6a2 2 0 0 1 2 -2Z'], filled: true },
  trash: {
    paths: ['M2.5 4.5h11M6.5 4.5V3a1 1 0 0 1 1-1h1a1 1 0 0 1 1 1v1.5M4 4.5l.6 8.6a1 1 0 0 0 1 .9h4.8a1 1 0 0 0 1-.9l.6-8.6'],
    strokeWidth: 1.5,
    round: true,
  },
  /** The trash can with its ribs, drawn large in the delete confirmation. */
  'trash-ribbed': {
    paths: ['M2.5 4.5h11M6.5 4.5V3a1 1 0 0 1 1-1h1a1 1 0 0 1 1 1v1.5M4 4.5l.6 8.6a1 1 0 0 0 1 .9h4.8a1 1 0 0 0 1-.9l.6-8.6M6.8 7v4.5M9.2 7v4.5'],
    strokeWidth: 1.4,
    round: true,
  },
} satisfies Record<string, IconDrawing>;

export type IconName = keyof typeof ICON_PATHS;

/**
 * An icon ready to draw: its SVG paint attributes and its paths joined into one `d`. Named
 * attributes, not a record to spread: a spread on the `<svg>` is diffed as a whole on every
 * card made (a chain streaming 100 steps a second makes hundreds of icons a second).
 */
export interface DrawnIcon {
  viewBox: string;
  fill: 'none' | 'currentColor';
  stroke: 'currentColor' | undefined;
  strokeWidth: number | undefined;
  linecap: 'round' | undefined;
  linejoin: 'round' | undefined;
  d: string;
}

function drawn(icon: IconDrawing): DrawnIcon {
  const box = icon.box ?? 16;
  const filled = icon.filled === true;
  const round = icon.round === true ? 'round' : undefined;
  // One path of several subpaths draws the same (none of them overlaps a filled other) and is one element to create per icon.
  return {
    viewBox: `0 0 ${box} ${box}`,
    fill: filled ? 'currentColor' : 'none',
    stroke: filled ? undefined : 'currentColor',
    strokeWidth: filled ? undefined : icon.strokeWidth,
    linecap: round,
    linejoin: round,
    d: icon.paths.join(' '),
  };
}

/**
 * Every icon prepared once, at load: a timeline draws one per step, thousands for a long chain,
 * so an icon costs one element with fixed attributes rather than a reactive attribute each.
 */
export const DRAWN_ICONS = Object.fromEntries(Object.entries(ICON_PATHS).map(([name, icon]) => [name, drawn(icon)])) as Record<IconName, DrawnIcon>;
