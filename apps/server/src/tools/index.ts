import { askUserTool } from './ask-user.js';
import { calculatorTool } from './calculator.js';
import { dateCalculatorTool } from './date-calculator.js';
import { ToolRegistry } from './tool-registry.js';
import { unitConverterTool } from './unit-converter.js';

export { askUserTool } from './ask-user.js';
export { calculatorTool } from './calculator.js';
export { dateCalculatorTool } from './date-calculator.js';
export { unitConverterTool } from './unit-converter.js';

/** A registry with every built-in tool: `calculator`, `unit_converter`, `date_calculator`, and `ask_user` (PROTOCOL.md §25.1). */
export function createDefaultTools(): ToolRegistry {
  return new ToolRegistry().register(calculatorTool).register(unitConverterTool).register(dateCalculatorTool).register(askUserTool);
}
