import { Structure, type PackValue } from '../packstream/structure.js';

/** The server's four answers. */
export const success = (metadata: { [key: string]: PackValue } = {}): Structure => new Structure(0x70, [metadata]);
export const record = (values: PackValue[]): Structure => new Structure(0x71, [values]);
export const ignored = (): Structure => new Structure(0x7e, []);

/**
 * FAILURE: `code` and `message` for Bolt up to 5.6; 5.7 and later read `neo4j_code` and a GQL
 * status too, so both are sent.
 */
export const failure = (code: string, message: string): Structure =>
  new Structure(0x7f, [{ code, neo4j_code: code, message, gql_status: '50N42', description: message }]);
