import { ToolError } from '../tool.js';

/**
 * A calculator failure the user can act on. `position` is 1-based (the first character is
 * position 1) so it matches how people count characters in what they typed.
 */
export class ExpressionError extends ToolError {
  constructor(
    message: string,
    readonly position?: number,
  ) {
    super(message);
  }
}
