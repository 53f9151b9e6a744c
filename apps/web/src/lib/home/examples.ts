/** The example tasks on the home page: arithmetic word problems the demo agent solves with its calculator. */
export const EXAMPLE_TASKS = [
  'A train travels 180 km in 2.5 hours. What is its average speed?',
  '小明有12个苹果，吃了3个，又买了5个，现在有几个？',
  'What is 15% of 240?',
] as const;
