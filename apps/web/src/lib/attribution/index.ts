export { whoWords, type WhoStyle } from './who-words.js';
export { isOwnActor, type OwnReader } from './own-actor.js';
