/** What bench:peers asks of each engine it measures: load the records, answer a query. */
import type { Answer } from './answers.ts';
import type { Query } from './workload.ts';

export interface Engine {
  readonly name: string;
  /** Loads `count` generated records with every index the engine's queries use; returns the seconds it took (generation excluded). */
  load(count: number): Promise<number>;
  /** Answers the query; the bench times whole calls, so an answer that takes two requests or statements times both. */
  answer(q: Query): Promise<Answer>;
  close(): Promise<void>;
}

/** Records per chunk generated outside the clock, then loaded inside it. */
export const LOAD_CHUNK = 250_000;
