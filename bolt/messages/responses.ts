import { Structure, type PackValue } from '../packstream/structure.js';

/** The server's four answers. */
export const success = (metadata: { [key: string]: PackValue } = {}): Structure => new Structure(0x70, [metadata]);
export const record = (values: PackValue[]): Structure => new Structure(0x71, [values]);
export const ignored = (): Structure => new Structure(0x7e, []);

/**
 * FAILURE: `code` and `message` for Bolt up to 5.6; 5.7 and later read `neo4j_code`, the GQL
 * status, its description and the diagnostic record (whose _classification the driver reports),
 * so both are sent.
 */
export const failure = (f: { code: string; message: string; gqlStatus: string; description: string; classification: string }): Structure =>
  new Structure(0x7f, [
    {
      code: f.code,
      neo4j_code: f.code,
      message: f.message,
      gql_status: f.gqlStatus,
      description: `${f.description}. ${f.message}`,
      diagnostic_record: { OPERATION: '', OPERATION_CODE: '0', CURRENT_SCHEMA: '/', _classification: f.classification },
    },
  ]);
