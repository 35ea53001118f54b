/**
 * The GQLSTATUS a FAILURE carries (Bolt 5.7+), from the Neo4j status code: the codes Neo4j
 * documents for these conditions (neo4j.com/docs/status-codes, GQLSTATUS error codes), and for
 * any other 50N42, "unexpected error", which Neo4j itself sends for errors it has not mapped.
 */
const GQL_STATUS: Record<string, [string, string]> = {
  'Neo.ClientError.Statement.SyntaxError': ['42001', 'error: syntax error or access rule violation - invalid syntax'],
  'Neo.ClientError.Statement.SemanticError': ['42000', 'error: syntax error or access rule violation'],
  'Neo.ClientError.Statement.TypeError': ['22N01', 'error: data exception - invalid type'],
  'Neo.ClientError.Statement.ArgumentError': ['22N11', 'error: data exception - invalid argument'],
  'Neo.ClientError.Statement.ParameterMissing': ['42N51', 'error: syntax error or access rule violation - invalid parameter'],
  'Neo.ClientError.Statement.EntityNotFound': ['25N13', 'error: invalid transaction state - cannot access entity after removal'],
  'Neo.ClientError.Statement.AccessMode': ['42N02', 'error: syntax error or access rule violation - writing in read access mode'],
  'Neo.ClientError.Statement.NotSystemDatabaseError': ['42NA9', 'error: syntax error or access rule violation - system database rules'],
  'Neo.ClientError.Procedure.ProcedureNotFound': ['42N08', 'error: syntax error or access rule violation - no such procedure'],
  'Neo.ClientError.Procedure.ProcedureCallFailed': ['52N37', 'error: procedure exception - procedure execution error'],
  'Neo.ClientError.Schema.IndexWithNameAlreadyExists': ['22N71', 'error: data exception - duplicated index name'],
  'Neo.ClientError.Schema.ConstraintWithNameAlreadyExists': ['22N67', 'error: data exception - duplicated constraint name'],
  'Neo.ClientError.Schema.ConstraintValidationFailed': ['22N79', 'error: data exception - property uniqueness constraint violated'],
  'Neo.DatabaseError.Schema.IndexDropFailed': ['50N10', 'error: general processing exception - index drop failed'],
  'Neo.DatabaseError.Schema.ConstraintDropFailed': ['50N12', 'error: general processing exception - constraint drop failed'],
  'Neo.ClientError.Transaction.ForbiddenDueToTransactionType': ['25N01', 'error: invalid transaction state - invalid combination of statement types'],
  'Neo.ClientError.Database.DatabaseNotFound': ['22N51', 'error: data exception - graph reference not found'],
  'Neo.ClientError.Security.Unauthorized': ['42NFF', 'error: syntax error or access rule violation - permission/access denied'],
  'Neo.ClientError.Security.Forbidden': ['42NFF', 'error: syntax error or access rule violation - permission/access denied'],
};

const UNEXPECTED: [string, string] = ['50N42', 'error: general processing exception - unexpected error'];

/** The error's GQL status, its description, and the classification the driver reads (CLIENT_ERROR, TRANSIENT_ERROR, DATABASE_ERROR). */
export function gqlStatusOf(code: string, detail: string): { gqlStatus: string; description: string; classification: string } {
  let [gqlStatus, description] = GQL_STATUS[code] ?? UNEXPECTED;
  if (code === 'Neo.ClientError.Statement.ArithmeticError') [gqlStatus, description] = detail === 'DivisionByZero' ? ['22012', 'error: data exception - division by zero'] : ['22003', 'error: data exception - numeric value out of range'];
  if (code === 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists') {
    [gqlStatus, description] = detail === 'index' ? ['22N70', 'error: data exception - equivalent index already exists'] : ['22N65', 'error: data exception - equivalent constraint already exists'];
  }
  const classification = code.startsWith('Neo.ClientError.') ? 'CLIENT_ERROR' : code.startsWith('Neo.TransientError.') ? 'TRANSIENT_ERROR' : 'DATABASE_ERROR';
  return { gqlStatus, description, classification };
}
