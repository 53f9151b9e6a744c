/** A run of an AG-UI agent that cannot go on: the message is the session's failure, as the user reads it. */
export class AgUiFailure extends Error {
  override readonly name = 'AgUiFailure';
}
