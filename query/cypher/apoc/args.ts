import { apocFailure } from '../apoc-functions.js';
import type { EvalContext } from '../evaluate.js';
import type { FunctionDef } from '../functions.js';
import { isNumber, numberOf } from '../numbers.js';
import { isMap, typeName, type MapValue, type Value } from '../values.js';

/** Argument checks shared by the APOC function families: a wrong type fails as Neo4j words an APOC failure. */

export type ApocCall = (args: Value[], fail: (message: string) => Error, ctx: EvalContext) => Value;

/** A FunctionDef for `display`, its failures worded as Neo4j's; missing optional arguments arrive as undefined. */
export function apocFunction(display: string, minArgs: number, maxArgs: number, call: ApocCall): [string, FunctionDef] {
  const fail = (message: string) => apocFailure('function', display, message);
  return [display.toLowerCase(), { minArgs, maxArgs, display, call: (args, ctx) => call(args, fail, ctx) }];
}

const wrong = (what: string, v: Value, fail: (m: string) => Error) => fail(`expected ${what}, got ${v === null ? 'null' : `a ${typeName(v)}`}`);

export function listArg(v: Value, fail: (m: string) => Error): Value[] {
  if (!Array.isArray(v)) throw wrong('a list', v, fail);
  return v;
}

export function stringArg(v: Value, fail: (m: string) => Error): string {
  if (typeof v !== 'string') throw wrong('a string', v, fail);
  return v;
}

export function mapArg(v: Value, fail: (m: string) => Error): MapValue {
  if (!isMap(v)) throw wrong('a map', v, fail);
  return v;
}

export function integerArg(v: Value, fail: (m: string) => Error): number {
  if (!isNumber(v) || !Number.isInteger(numberOf(v))) throw wrong('an integer', v, fail);
  return numberOf(v);
}

export const given = (v: Value | undefined): v is Exclude<Value, null> => v !== undefined && v !== null;
