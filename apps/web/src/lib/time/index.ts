export { Clock, provideClock, useClock } from './clock.svelte.js';
