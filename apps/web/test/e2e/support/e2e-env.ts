import type { Browser } from 'playwright-core';
import type { RunningServer } from './server.js';

/** What every scenario gets: the running server and the shared browser. */
export interface E2eEnv {
  server: RunningServer;
  browser: Browser;
}

export type GetEnv = () => E2eEnv;

export const TRAIN_TASK = 'A train travels 180 km in 2.5 hours. What is its average speed?';
export const APPLES_TASK = '小明有12个苹果，吃了3个，又买了5个，现在有几个？';
export const PERCENT_TASK = 'What is 15% of 240?';
