export { CLOCK_KEY, Clock, provideClock, useClock } from './clock.svelte.js';
