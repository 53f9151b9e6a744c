import { ExpressionError } from './expression-error.js';
import type { Token } from './tokenizer.js';

export type BinaryOperator = '+' | '-' | '*' | '/' | '^' | 'mod';

/** The parsed expression. `position` (1-based) points at the operator, for error messages. */
export type ExpressionNode =
  | { kind: 'number'; value: number; position: number }
  | { kind: 'percent'; operand: ExpressionNode; position: number }
  | { kind: 'negate'; operand: ExpressionNode; position: number }
  | { kind: 'binary'; op: BinaryOperator; left: ExpressionNode; right: ExpressionNode; position: number };

/** Deep enough for any real expression, shallow enough that the parser's recursion stays far from the stack limit. */
export const MAX_NESTING = 200;

/**
 * Recursive descent, one function per precedence level (lowest first):
 *   expression := term (('+' | '-') term)*
 *   term       := unary (('*' | '/' | 'mod') unary | <implicit '*' before '('> unary)*
 *   unary      := ('-' | '+') unary | power
 *   power      := postfix ('^' unary)?        right-associative: 2^3^2 = 2^(3^2)
 *   postfix    := primary '%'?
 *   primary    := number | '(' expression ')'
 * so -2^2 = -(2^2) = -4, as in mathematics, and 2^-1 = 0.5.
 */
class Parser {
  #index = 0;
  #depth = 0;

  constructor(readonly tokens: readonly Token[]) {}

  parse(): ExpressionNode {
    if (this.tokens.length === 0) throw new ExpressionError('Expression is empty');
    const node = this.#expression();
    const extra = this.#peek();
    if (extra) throw this.#unexpected(extra);
    return node;
  }

  #peek(): Token | undefined {
    return this.tokens[this.#index];
  }

  #next(): Token | undefined {
    return this.tokens[this.#index++];
  }

  #isOperator(token: Token | undefined, ...ops: string[]): token is Token & { type: 'operator' } {
    return token?.type === 'operator' && ops.includes(token.op);
  }

  #expression(): ExpressionNode {
    let left = this.#term();
    for (let token = this.#peek(); this.#isOperator(token, '+', '-'); token = this.#peek()) {
      this.#next();
      left = { kind: 'binary', op: token.op as BinaryOperator, left, right: this.#term(), position: token.position };
    }
    return left;
  }

  #term(): ExpressionNode {
    let left = this.#unary();
    for (;;) {
      const token = this.#peek();
      if (this.#isOperator(token, '*', '/', 'mod')) {
        this.#next();
        left = { kind: 'binary', op: token.op as BinaryOperator, left, right: this.#unary(), position: token.position };
      } else if (token?.type === 'paren' && token.paren === '(') {
        // "2(3 + 4)" is written multiplication: people type it, and it has only one reading.
        left = { kind: 'binary', op: '*', left, right: this.#unary(), position: token.position };
      } else {
        return left;
      }
    }
  }

  /** Every nesting (brackets, signs, exponents) passes through here, so this is where depth is bounded. */
  #unary(): ExpressionNode {
    if (++this.#depth > MAX_NESTING) {
      throw new ExpressionError(`Expression nests too deeply (more than ${MAX_NESTING} levels)`);
    }
    const token = this.#peek();
    let node: ExpressionNode;
    if (this.#isOperator(token, '-', '+')) {
      this.#next();
      const operand = this.#unary();
      node = token.op === '-' ? { kind: 'negate', operand, position: token.position } : operand;
    } else {
      node = this.#power();
    }
    this.#depth--;
    return node;
  }

  #power(): ExpressionNode {
    const base = this.#postfix();
    const token = this.#peek();
    if (!this.#isOperator(token, '^')) return base;
    this.#next();
    return { kind: 'binary', op: '^', left: base, right: this.#unary(), position: token.position };
  }

  #postfix(): ExpressionNode {
    const operand = this.#primary();
    const token = this.#peek();
    if (!this.#isOperator(token, '%')) return operand;
    this.#next();
    return { kind: 'percent', operand, position: token.position };
  }

  #primary(): ExpressionNode {
    const token = this.#next();
    if (token === undefined) throw this.#endedEarly();
    if (token.type === 'number') return { kind: 'number', value: token.value, position: token.position };
    if (token.type === 'paren' && token.paren === '(') {
      const inner = this.#expression();
      const closing = this.#next();
      if (closing?.type === 'paren' && closing.paren === ')') return inner;
      if (closing === undefined) {
        throw new ExpressionError(`Missing ')' to close the '(' at position ${token.position}`, token.position);
      }
      throw this.#unexpected(closing);
    }
    throw this.#unexpected(token);
  }

  #unexpected(token: Token): ExpressionError {
    if (token.type === 'number') {
      return new ExpressionError(
        `Unexpected number '${token.text}' at position ${token.position} (an operator is missing before it)`,
        token.position,
      );
    }
    return new ExpressionError(`Unexpected '${token.text}' at position ${token.position}`, token.position);
  }

  #endedEarly(): ExpressionError {
    const last = this.tokens[this.tokens.length - 1];
    if (last === undefined) return new ExpressionError('Expression is empty');
    return new ExpressionError(
      `Unexpected end of expression: a number is missing after '${last.text}' at position ${last.position}`,
      last.position,
    );
  }
}

/** Parse tokens into an expression tree, or throw an `ExpressionError` with the position at fault. */
export function parseTokens(tokens: readonly Token[]): ExpressionNode {
  return new Parser(tokens).parse();
}
