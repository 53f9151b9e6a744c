import { describe, expect, it } from 'vitest';
import { calculateDate, dateCalculatorTool } from '../../src/tools/date-calculator.js';

const signal = new AbortController().signal;

describe('date calculator', () => {
  it('counts the days between two dates across a leap February', () => {
    expect(calculateDate({ operation: 'days_between', start: '2024-01-01', end: '2024-03-01' })).toMatchObject({ value: 60 });
    expect(calculateDate({ operation: 'days_between', start: '2023-01-01', end: '2023-03-01' })).toMatchObject({ value: 59 });
    expect(calculateDate({ operation: 'days_between', start: '2024-03-01', end: '2024-01-01' })).toMatchObject({ value: -60 });
  });

  it('adds and subtracts days, naming the weekday', async () => {
    const later = await dateCalculatorTool.execute({ operation: 'add_days', start: '2024-01-01', days: 30 }, signal);
    expect(later.output).toEqual({ operation: 'add_days', start: '2024-01-01', days: 30, date: '2024-01-31', weekday: 'Wednesday' });
    expect(later.text).toBe('2024-01-01 + 30 days = 2024-01-31 (Wednesday)');
    expect(calculateDate({ operation: 'add_days', start: '2024-03-01', days: -1 })).toMatchObject({ date: '2024-02-29' });
  });

  it('refuses dates that do not exist or are not YYYY-MM-DD', () => {
    expect(() => calculateDate({ operation: 'days_between', start: '2023-02-29', end: '2023-03-01' })).toThrow('"start" is not a real date: 2023-02-29.');
    expect(() => calculateDate({ operation: 'days_between', start: '01/02/2024', end: '2024-03-01' })).toThrow('"start" must be a date as YYYY-MM-DD');
  });

  it('says which field an operation is missing', () => {
    expect(() => calculateDate({ operation: 'days_between', start: '2024-01-01' })).toThrow('"end" is required');
    expect(() => calculateDate({ operation: 'add_days', start: '2024-01-01' })).toThrow('"days" is required for add_days');
  });

  it('refuses results outside the years 1 to 9999', () => {
    expect(() => calculateDate({ operation: 'add_days', start: '9999-12-31', days: 1 })).toThrow('outside the years 1 to 9999');
    expect(() => calculateDate({ operation: 'add_days', start: '2024-01-01', days: 1e9 })).toThrow('"days" must be between');
  });
});
