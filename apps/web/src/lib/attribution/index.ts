export { whoWords, type WhoStyle } from './who-words.js';
