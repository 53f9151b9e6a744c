/** What a unit measures; only units of one dimension convert into each other. */
export type Dimension = 'length' | 'mass' | 'time' | 'speed' | 'temperature' | 'volume';

export const DIMENSIONS: readonly Dimension[] = ['length', 'mass', 'time', 'speed', 'temperature', 'volume'];

/** A unit: how to reach the dimension's base unit (m, kg, s, m/s, K, L) and back, and what it is called. */
export interface UnitDefinition {
  /** The canonical symbol, shown in results: `km`, `°C`, `斤`. */
  symbol: string;
  dimension: Dimension;
  toBase(value: number): number;
  fromBase(value: number): number;
  /** Names as people write them (English singular and plural, Chinese). */
  names: { en: readonly [string, string]; zh: string };
  /** Other spellings accepted on input, matched case-insensitively. */
  aliases: readonly string[];
}

type UnitSpec = Omit<UnitDefinition, 'toBase' | 'fromBase'> & { factor: number };

/** A unit that is a fixed multiple of its base unit (all but temperatures). */
function linear(spec: UnitSpec): UnitDefinition {
  const { factor, ...rest } = spec;
  return { ...rest, toBase: (value) => value * factor, fromBase: (value) => value / factor };
}

// Exact definitions: international yard and pound (1959), US liquid gallon, 1 斤 = 500 g.
const INCH = 0.0254;
const FOOT = 0.3048;
const YARD = 0.9144;
const MILE = 1609.344;
const POUND = 0.45359237;
const GALLON = 3.785411784;

const LINEAR_UNITS: readonly UnitSpec[] = [
  { symbol: 'm', dimension: 'length', factor: 1, names: { en: ['metre', 'metres'], zh: '米' }, aliases: ['meter', 'meters', 'metre', 'metres', '米', '公尺'] },
  { symbol: 'km', dimension: 'length', factor: 1000, names: { en: ['kilometre', 'kilometres'], zh: '公里' }, aliases: ['kilometer', 'kilometers', 'kilometre', 'kilometres', 'kms', '公里', '千米'] },
  { symbol: 'cm', dimension: 'length', factor: 0.01, names: { en: ['centimetre', 'centimetres'], zh: '厘米' }, aliases: ['centimeter', 'centimeters', 'centimetre', 'centimetres', '厘米', '公分'] },
  { symbol: 'mm', dimension: 'length', factor: 0.001, names: { en: ['millimetre', 'millimetres'], zh: '毫米' }, aliases: ['millimeter', 'millimeters', 'millimetre', 'millimetres', '毫米'] },
  { symbol: 'mi', dimension: 'length', factor: MILE, names: { en: ['mile', 'miles'], zh: '英里' }, aliases: ['mile', 'miles', '英里'] },
  { symbol: 'ft', dimension: 'length', factor: FOOT, names: { en: ['foot', 'feet'], zh: '英尺' }, aliases: ['foot', 'feet', '英尺'] },
  { symbol: 'in', dimension: 'length', factor: INCH, names: { en: ['inch', 'inches'], zh: '英寸' }, aliases: ['inch', 'inches', '英寸'] },
  { symbol: 'yd', dimension: 'length', factor: YARD, names: { en: ['yard', 'yards'], zh: '码' }, aliases: ['yard', 'yards', 'yds', '码'] },
  { symbol: 'kg', dimension: 'mass', factor: 1, names: { en: ['kilogram', 'kilograms'], zh: '公斤' }, aliases: ['kilogram', 'kilograms', 'kilo', 'kilos', 'kgs', '公斤', '千克'] },
  { symbol: 'g', dimension: 'mass', factor: 0.001, names: { en: ['gram', 'grams'], zh: '克' }, aliases: ['gram', 'grams', 'gramme', 'grammes', '克'] },
  { symbol: 'lb', dimension: 'mass', factor: POUND, names: { en: ['pound', 'pounds'], zh: '磅' }, aliases: ['lbs', 'pound', 'pounds', '磅'] },
  { symbol: 'oz', dimension: 'mass', factor: POUND / 16, names: { en: ['ounce', 'ounces'], zh: '盎司' }, aliases: ['ounce', 'ounces', '盎司'] },
  { symbol: '斤', dimension: 'mass', factor: 0.5, names: { en: ['jin', 'jin'], zh: '斤' }, aliases: ['jin', '市斤'] },
  { symbol: 't', dimension: 'mass', factor: 1000, names: { en: ['tonne', 'tonnes'], zh: '吨' }, aliases: ['tonne', 'tonnes', 'metric ton', 'metric tons', '吨'] },
  { symbol: 's', dimension: 'time', factor: 1, names: { en: ['second', 'seconds'], zh: '秒' }, aliases: ['sec', 'secs', 'second', 'seconds', '秒', '秒钟'] },
  { symbol: 'min', dimension: 'time', factor: 60, names: { en: ['minute', 'minutes'], zh: '分钟' }, aliases: ['mins', 'minute', 'minutes', '分钟'] },
  { symbol: 'h', dimension: 'time', factor: 3600, names: { en: ['hour', 'hours'], zh: '小时' }, aliases: ['hr', 'hrs', 'hour', 'hours', '小时', '钟头'] },
  { symbol: 'day', dimension: 'time', factor: 86_400, names: { en: ['day', 'days'], zh: '天' }, aliases: ['d', 'days', '天'] },
  { symbol: 'week', dimension: 'time', factor: 604_800, names: { en: ['week', 'weeks'], zh: '周' }, aliases: ['wk', 'wks', 'weeks', '周', '星期', '个星期'] },
  { symbol: 'km/h', dimension: 'speed', factor: 1000 / 3600, names: { en: ['kilometre per hour', 'kilometres per hour'], zh: '公里每小时' }, aliases: ['kmh', 'kph', 'km/hr', 'kmph', 'km per hour', 'kilometers per hour', 'kilometres per hour', 'kilometer per hour', 'kilometre per hour', '公里/小时', '公里每小时', '千米/小时', '千米每小时', '千米/时', '公里/时'] },
  { symbol: 'm/s', dimension: 'speed', factor: 1, names: { en: ['metre per second', 'metres per second'], zh: '米每秒' }, aliases: ['mps', 'meters per second', 'metres per second', 'meter per second', 'metre per second', '米/秒', '米每秒'] },
  { symbol: 'mph', dimension: 'speed', factor: MILE / 3600, names: { en: ['mile per hour', 'miles per hour'], zh: '英里每小时' }, aliases: ['mi/h', 'miles per hour', 'mile per hour', '英里/小时', '英里每小时'] },
  { symbol: 'L', dimension: 'volume', factor: 1, names: { en: ['litre', 'litres'], zh: '升' }, aliases: ['liter', 'liters', 'litre', 'litres', '升', '公升'] },
  { symbol: 'mL', dimension: 'volume', factor: 0.001, names: { en: ['millilitre', 'millilitres'], zh: '毫升' }, aliases: ['milliliter', 'milliliters', 'millilitre', 'millilitres', '毫升'] },
  { symbol: 'gal', dimension: 'volume', factor: GALLON, names: { en: ['gallon', 'gallons'], zh: '加仑' }, aliases: ['gallon', 'gallons', 'us gallon', 'us gallons', '加仑'] },
];

const ABSOLUTE_ZERO_CELSIUS = 273.15;

const TEMPERATURE_UNITS: readonly UnitDefinition[] = [
  {
    symbol: '°C', dimension: 'temperature', names: { en: ['degree Celsius', 'degrees Celsius'], zh: '摄氏度' },
    aliases: ['c', 'celsius', 'centigrade', 'degc', 'deg c', 'degree celsius', 'degrees celsius', '℃', '摄氏度', '摄氏'],
    toBase: (value) => value + ABSOLUTE_ZERO_CELSIUS,
    fromBase: (value) => value - ABSOLUTE_ZERO_CELSIUS,
  },
  {
    symbol: '°F', dimension: 'temperature', names: { en: ['degree Fahrenheit', 'degrees Fahrenheit'], zh: '华氏度' },
    aliases: ['f', 'fahrenheit', 'degf', 'deg f', 'degree fahrenheit', 'degrees fahrenheit', '℉', '华氏度', '华氏'],
    toBase: (value) => ((value - 32) * 5) / 9 + ABSOLUTE_ZERO_CELSIUS,
    fromBase: (value) => ((value - ABSOLUTE_ZERO_CELSIUS) * 9) / 5 + 32,
  },
  {
    symbol: 'K', dimension: 'temperature', names: { en: ['kelvin', 'kelvins'], zh: '开尔文' },
    aliases: ['kelvin', 'kelvins', 'degk', '开尔文'],
    toBase: (value) => value,
    fromBase: (value) => value,
  },
];

/** Every unit the converter knows, in the order they are listed to users. */
export const UNITS: readonly UnitDefinition[] = [...LINEAR_UNITS.map(linear), ...TEMPERATURE_UNITS];

/** How a unit is looked up: case-insensitive, spaces collapsed, "°" and "degrees" optional. */
export function unitKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '');
}

const UNITS_BY_KEY: ReadonlyMap<string, UnitDefinition> = (() => {
  const byKey = new Map<string, UnitDefinition>();
  for (const unit of UNITS) {
    for (const spelling of [unit.symbol, ...unit.aliases]) byKey.set(unitKey(spelling), unit);
  }
  return byKey;
})();

/** The unit a spelling names (`"km"`, `"Kilometres"`, `"公里"`, `"°F"`), or undefined. */
export function findUnit(spelling: string): UnitDefinition | undefined {
  const key = unitKey(spelling);
  return UNITS_BY_KEY.get(key) ?? UNITS_BY_KEY.get(key.replace(/^°\s*/, '').replace(/^degrees? /, ''));
}

/** Every spelling the unit table accepts, longest first (for finding units inside running text). */
export function unitSpellings(): ReadonlyArray<{ spelling: string; unit: UnitDefinition }> {
  return [...UNITS_BY_KEY.entries()]
    .map(([spelling, unit]) => ({ spelling, unit }))
    .sort((a, b) => b.spelling.length - a.spelling.length);
}

/** The dimension's units for a message, e.g. `m (米), km (公里), … ft, in, yd`. */
export function listUnits(dimension: Dimension): string {
  return UNITS.filter((unit) => unit.dimension === dimension)
    .map((unit) => (unit.names.zh === unit.symbol ? unit.symbol : `${unit.symbol} (${unit.names.zh})`))
    .join(', ');
}
