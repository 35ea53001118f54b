import type { Value } from '../values.js';

/**
 * The signature columns of SHOW PROCEDURES and SHOW FUNCTIONS (Neo4j Browser reads `signature`
 * for its help and completion). Procedures and functions here declare how many arguments they
 * take and the columns they yield, not names or types: arguments are listed as `arg1`, `arg2`,
 * ... of type ANY (those past the required ones defaulting to null) and columns as ANY.
 */
export interface Signature {
  signature: string;
  argumentDescription: Value[];
}

/** Beyond this many optional arguments (a variadic function) one `rest` argument stands for the others. */
const LISTED_OPTIONAL = 4;

export function signatureOf(name: string, minArgs: number, maxArgs: number, returns: string): Signature {
  const listed = Math.min(maxArgs, minArgs + LISTED_OPTIONAL);
  const args = Array.from({ length: listed }, (_, i) => ({ name: i === listed - 1 && listed < maxArgs ? 'rest' : `arg${i + 1}`, required: i < minArgs }));
  const text = args.map((a) => `${a.name}${a.required ? '' : ' = null'} :: ANY`).join(', ');
  return {
    signature: `${name}(${text})${returns}`,
    argumentDescription: args.map((a) => ({ name: a.name, description: '', type: 'ANY', ...(a.required ? {} : { default: 'DefaultParameterValue{value=null, type=ANY}' }), isDeprecated: false })),
  };
}

/** ` :: (col :: ANY, ...)` for a procedure's columns; nothing for a procedure that yields none. */
export const procedureReturns = (outputs: string[]) => (outputs.length === 0 ? '' : ` :: (${outputs.map((c) => `${c} :: ANY`).join(', ')})`);

/** The list SHOW PROCEDURES gives under `returnDescription`. */
export const returnDescription = (outputs: string[]): Value[] => outputs.map((name) => ({ name, description: '', type: 'ANY', isDeprecated: false }));
