import { oneofMember, type MessageCodec } from './proto-json.js';
import { invalidArgument } from './status.js';

type Fields = Record<string, unknown>;

/** A converted operation with its PointsSelector field ({points} or {filter}) spread into it. */
function spread(fields: Fields, name: string): Fields {
  const { [name]: selector, ...rest } = fields;
  return { ...rest, ...(selector as Fields | undefined) };
}

/**
 * qdrant.PointsUpdateOperation as an operation of REST's POST /points/batch: {upsert}, {delete},
 * {set_payload}, {overwrite_payload}, {delete_payload}, {clear_payload}, {update_vectors},
 * {delete_vectors}, each with its points selector as REST's `points` or `filter`.
 */
export const pointsUpdateOperationCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'operation');
    if (!member) throw invalidArgument(`${where}: an operation needs one of ${desc.oneofs[0]!.fields.map((f) => f.name).join(', ')}`);
    const converted = walk.fieldToRest(member.field, member.value, `${where}.${member.field.name}`) as Fields;
    switch (member.field.name) {
      case 'delete_deprecated':
        return { delete: converted };
      case 'clear_payload_deprecated':
        return { clear_payload: converted };
      case 'delete_points':
        return { delete: spread(converted, 'points') };
      case 'clear_payload':
        return { clear_payload: spread(converted, 'points') };
      case 'set_payload':
      case 'overwrite_payload':
      case 'delete_payload':
        return { [member.field.name]: spread(converted, 'points_selector') };
      case 'delete_vectors': {
        const { vectors, ...rest } = spread(converted, 'points_selector');
        return { delete_vectors: { ...rest, vector: vectors ?? [] } };
      }
      default:
        return { [member.field.name]: converted };
    }
  },
};
