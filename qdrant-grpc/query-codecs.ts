import { oneofMember, type MessageCodec } from './proto-json.js';
import { invalidArgument } from './status.js';

/**
 * qdrant.Query as a REST query: {nearest: v}, {nearest, mmr}, {recommend}, {discover},
 * {context}, {order_by}, {fusion}, {rrf}, {sample}. A formula is refused: its proto form
 * (Expression trees) is not the REST one.
 */
export const queryCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'variant');
    if (!member) throw invalidArgument(`${where}: a query needs one of ${desc.oneofs[0]!.fields.map((f) => f.name).join(', ')}`);
    const name = member.field.name;
    if (name === 'formula') throw invalidArgument(`${where}.formula: formula queries are not served over gRPC: send them to the REST API`);
    const converted = walk.fieldToRest(member.field, member.value, `${where}.${name}`);
    return name === 'nearest_with_mmr' ? converted : { [name]: converted };
  },
};

/** qdrant.ContextInput: REST's list of {positive, negative} pairs. */
export const contextInputCodec: MessageCodec = {
  toRest: (desc, msg, walk, where) => walk.fieldToRest(desc.fields.find((f) => f.name === 'pairs')!, msg.pairs, where),
};
