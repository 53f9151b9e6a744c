import { describe, expect, it } from 'vitest';
import { convertUnits, unitConverterTool } from '../../src/tools/unit-converter.js';
import { ToolError } from '../../src/tools/tool.js';

const signal = new AbortController().signal;

function convert(value: number, from: string, to: string): number {
  return convertUnits({ value, from, to }).value;
}

function refusal(value: number, from: string, to: string): string {
  try {
    convertUnits({ value, from, to });
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as Error).message;
  }
  throw new Error(`${value} ${from} → ${to} converted without an error`);
}

describe('unit converter: conversions', () => {
  it('converts lengths, with the exact international mile, foot, inch and yard', () => {
    expect(convert(1, 'km', 'm')).toBe(1000);
    expect(convert(1, 'mi', 'km')).toBe(1.609344);
    expect(convert(12, 'in', 'cm')).toBe(30.48);
    expect(convert(1, 'yd', 'ft')).toBe(3);
    expect(convert(250, 'mm', 'cm')).toBe(25);
    expect(convert(5, 'km', 'mi')).toBe(3.10685596119);
  });

  it('understands Chinese unit names', () => {
    expect(convert(1, '公里', '米')).toBe(1000);
    expect(convert(3, '米', '厘米')).toBe(300);
    expect(convert(1, '英里', '公里')).toBe(1.609344);
    expect(convert(2, '公斤', '斤')).toBe(4);
    expect(convert(1, '斤', 'g')).toBe(500);
    expect(convert(2, '小时', '分钟')).toBe(120);
  });

  it('converts masses', () => {
    expect(convert(1, 'kg', 'g')).toBe(1000);
    expect(convert(16, 'oz', 'lb')).toBe(1);
    expect(convert(1, 'lb', 'kg')).toBe(0.45359237);
  });

  it('converts times', () => {
    expect(convert(3.5, 'h', 'min')).toBe(210);
    expect(convert(1, 'day', 's')).toBe(86_400);
    expect(convert(90, 'min', 'h')).toBe(1.5);
  });

  it('converts speeds', () => {
    expect(convert(72, 'km/h', 'm/s')).toBe(20);
    expect(convert(60, 'mph', 'km/h')).toBe(96.56064);
    expect(convert(10, 'm/s', 'km/h')).toBe(36);
  });

  it('converts temperatures with their offsets', () => {
    expect(convert(100, 'C', 'F')).toBe(212);
    expect(convert(98.6, '°F', '°C')).toBe(37);
    expect(convert(0, 'K', 'C')).toBe(-273.15);
    expect(convert(-40, 'celsius', 'fahrenheit')).toBe(-40);
    expect(convert(25, '℃', 'K')).toBe(298.15);
  });

  it('converts volumes, with the US gallon', () => {
    expect(convert(1, 'L', 'mL')).toBe(1000);
    expect(convert(500, 'ml', 'l')).toBe(0.5);
    expect(convert(1, 'gal', 'L')).toBe(3.785411784);
  });

  it('accepts full names, plurals and any letter case', () => {
    expect(convert(2, 'Kilometres', 'METERS')).toBe(2000);
    expect(convert(1, 'hours', 'minutes')).toBe(60);
    expect(convert(1, ' miles per hour ', 'kph')).toBe(1.609344);
  });

  it('reports the converted value and the input in its output and text', async () => {
    const result = await unitConverterTool.execute({ value: 3.5, from: 'hours', to: '分钟' }, signal);
    expect(result.output).toEqual({ value: 210, unit: 'min', from: { value: 3.5, unit: 'h' } });
    expect(result.text).toBe('3.5 h = 210 min');
  });
});

describe('unit converter: errors', () => {
  it('refuses an unknown unit and lists the units of the other side’s dimension', () => {
    const message = refusal(1, 'parsec', 'km');
    expect(message).toContain('Unknown unit "parsec".');
    expect(message).toContain('Known length units: m (米), km (公里), cm (厘米), mm (毫米), mi (英里), ft (英尺), in (英寸), yd (码).');
  });

  it('lists every dimension when neither unit is known', () => {
    const message = refusal(1, 'foo', 'bar');
    expect(message).toContain('Unknown unit "foo".');
    for (const dimension of ['length', 'mass', 'time', 'speed', 'temperature', 'volume']) expect(message).toContain(`${dimension}:`);
  });

  it('refuses incompatible dimensions and lists the units that would fit', () => {
    expect(refusal(1, 'km', 'kg')).toBe(
      'Cannot convert km (length) to kg (mass). Known length units: m (米), km (公里), cm (厘米), mm (毫米), mi (英里), ft (英尺), in (英寸), yd (码).',
    );
    expect(refusal(1, 'h', 'm/s')).toContain('Cannot convert h (time) to m/s (speed). Known time units: s (秒), min (分钟), h (小时)');
  });

  it('refuses an empty unit', () => {
    expect(refusal(1, ' ', 'km')).toContain('The "from" unit is empty. Known length units:');
  });

  it('refuses a temperature below absolute zero', () => {
    expect(refusal(-300, 'C', 'K')).toBe('-300 °C is below absolute zero (-273.15 °C).');
    expect(refusal(-1, 'K', 'F')).toBe('-1 K is below absolute zero (0 K).');
  });

  it('refuses a result beyond the range of a double', () => {
    expect(refusal(1e308, 'km', 'mm')).toBe('Result too large: it exceeds about 1.8e308.');
  });

  it('refuses input that does not match its schema', async () => {
    await expect(unitConverterTool.execute({ value: '3' } as never, signal)).rejects.toThrow('The unit converter needs');
  });
});
