import type { Collection } from '../../storage/collection.js';
import { constraintCandidates } from '../../storage/engine/node-constraints.js';
import type { GraphChange, Payload, PointId } from '../../storage/events/types.js';
import type { GraphTx } from './graph-tx.js';
import { CONSTRAINTS, schemaError, type ConstraintDef } from './schema.js';
import { storedProperty } from './stored-values.js';
import { keyOf, type Value } from './values.js';

/**
 * Enforcing constraints on the nodes a write leaves. Uniqueness (UNIQUENESS and NODE_KEY) is
 * checked at the end of each statement, as Neo4j refuses the statement that breaks it; property
 * existence (IS NOT NULL, and NODE_KEY's every property) when the write commits, as Neo4j checks
 * it at commit. Other nodes holding a value are found through the payload index (value → slots)
 * and the label index, the collection's views, so a check costs a lookup per node written.
 */

const quote = (name: string) => '`' + name.replaceAll('`', '``') + '`';

/** A stored value as Neo4j's messages show it: text in single quotes, anything else as its JSON. */
const shown = (json: unknown): string => (typeof json === 'string' ? `'${json}'` : Array.isArray(json) ? `[${json.map(shown).join(', ')}]` : JSON.stringify(json));

/** "property `a` = 1" or "properties `a` = 1, `b` = 'x'", as a payload holds them. */
function propertiesText(def: ConstraintDef, payload: Payload): string {
  const parts = def.properties.map((p) => `${quote(p)} = ${shown(payload[p])}`);
  return `${parts.length === 1 ? 'property' : 'properties'} ${parts.join(', ')}`;
}

const missingText = (def: ConstraintDef) => (def.properties.length === 1 ? `the property ${quote(def.properties[0]!)}` : `the properties (${def.properties.map(quote).join(', ')})`);

const unique = (def: ConstraintDef) => def.type !== 'NODE_PROPERTY_EXISTENCE';

/** The constraint's property values on a payload, or null when one is missing. */
function valuesOf(payload: Payload, def: ConstraintDef): Value[] | null {
  const out: Value[] = [];
  for (const p of def.properties) {
    const v = storedProperty(payload, p);
    if (v === undefined || v === null) return null;
    out.push(v);
  }
  return out;
}

const violation = (def: ConstraintDef, other: PointId, payload: Payload) =>
  schemaError('ConstraintValidationFailed', `Node(${other}) already exists with label ${quote(def.label)} and ${propertiesText(def, payload)}`);

/**
 * Refuses (Neo.ClientError.Schema.ConstraintValidationFailed) a statement that leaves two nodes
 * with a label holding the same values of a uniqueness or node key constraint's properties.
 */
export function checkUniqueness(tx: GraphTx): void {
  if (!tx.dirty) return;
  const defs = tx.schema.allConstraints().filter(unique);
  if (defs.length === 0) return;
  const c = tx.collection;
  for (const def of defs) {
    const seen = new Map<string, PointId>();
    for (const [id, data] of tx.writtenNodes()) {
      if (!data.labels.includes(def.label)) continue;
      const values = valuesOf(data.payload, def);
      if (values === null) continue;
      const key = keyOf(values);
      const twin = seen.get(key);
      if (twin !== undefined) throw violation(def, twin, data.payload);
      seen.set(key, id);
      // Nodes the overlay holds are compared above, with their data now.
      for (const other of constraintCandidates(c, def, data.payload)) {
        if (other === id || tx.overlays(other)) continue;
        const slot = c.store.slotOf(other);
        if (slot < 0 || !c.store.labels[slot]!.includes(def.label)) continue;
        const theirs = valuesOf(c.store.payloads[slot]!, def);
        if (theirs !== null && keyOf(theirs) === key) throw violation(def, other, data.payload);
      }
    }
  }
}

/** The nodes a write's changes leave, with their labels and payloads. */
function* nodesLeft(changes: readonly GraphChange[]): Iterable<{ id: PointId; labels: readonly string[]; payload: Payload }> {
  for (const ch of changes) {
    if (ch.kind === 'create_node' || ch.kind === 'update_node') yield { id: ch.point.id, labels: ch.point.labels ?? [], payload: ch.point.payload };
    else if (ch.kind === 'set_node') yield { id: ch.id, labels: ch.labels, payload: ch.payload };
  }
}

const mustHave = (def: ConstraintDef) => def.type === 'NODE_KEY' || def.type === 'NODE_PROPERTY_EXISTENCE';

/**
 * Refuses a commit whose changes leave a node without a property an existence or node key
 * constraint of its label requires; called before the write is logged.
 */
export function checkExistence(c: Collection, changes: readonly GraphChange[]): void {
  const defs = Object.values(c.settings[CONSTRAINTS] ?? {}).filter((d): d is ConstraintDef => d !== null && mustHave(d as ConstraintDef));
  if (defs.length === 0) return;
  for (const node of nodesLeft(changes)) {
    for (const def of defs) {
      if (node.labels.includes(def.label) && valuesOf(node.payload, def) === null) {
        throw schemaError('ConstraintValidationFailed', `Node(${node.id}) with label ${quote(def.label)} must have ${missingText(def)}`);
      }
    }
  }
}

const describe = (def: Pick<ConstraintDef, 'name' | 'type' | 'label' | 'properties'>) => `Constraint( name='${def.name}', type='${def.type}', schema=(:${def.label} {${def.properties.join(', ')}}) )`;

/**
 * Refuses (Neo.ClientError.Schema.ConstraintCreationFailed) a new constraint that the data
 * already breaks: two nodes of the label with the same values, or one without a required property.
 */
export function checkNewConstraint(tx: GraphTx, def: Pick<ConstraintDef, 'name' | 'type' | 'label' | 'properties'>): void {
  const seen = new Map<string, PointId>();
  const full = def as ConstraintDef;
  for (const id of tx.nodesWithLabel(def.label)) {
    const payload = tx.payloadOf(id) ?? {};
    const values = valuesOf(payload, full);
    if (values === null) {
      if (mustHave(full)) throw schemaError('ConstraintCreationFailed', `Unable to create ${describe(def)}:\nNode(${id}) with label ${quote(def.label)} must have ${missingText(full)}`);
      continue;
    }
    if (!unique(full)) continue;
    const key = keyOf(values);
    const twin = seen.get(key);
    if (twin !== undefined) throw schemaError('ConstraintCreationFailed', `Unable to create ${describe(def)}:\nBoth Node(${twin}) and Node(${id}) have the label ${quote(def.label)} and ${propertiesText(full, payload)}`);
    seen.set(key, id);
  }
}
