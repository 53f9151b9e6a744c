import { calculatorTool } from './calculator.js';
import { dateCalculatorTool } from './date-calculator.js';
import { ToolRegistry } from './tool-registry.js';
import { unitConverterTool } from './unit-converter.js';

export { calculatorTool } from './calculator.js';
export { dateCalculatorTool } from './date-calculator.js';
export { unitConverterTool } from './unit-converter.js';

/** A registry with every built-in tool: `calculator`, `unit_converter`, `date_calculator`. */
export function createDefaultTools(): ToolRegistry {
  return new ToolRegistry().register(calculatorTool).register(unitConverterTool).register(dateCalculatorTool);
}
