import { oneofMember, type MessageCodec } from './proto-json.js';
import { invalidArgument } from './status.js';

/** qdrant.PayloadExcludeSelector: REST's {exclude: [fields]}. */
export const payloadExcludeCodec: MessageCodec = {
  toRest: (_desc, msg) => ({ exclude: msg.fields }),
};

/**
 * qdrant.PointsSelector as the REST body fields it stands for: {points: [ids]} or {filter};
 * the methods that take one spread it into their body.
 */
export const pointsSelectorCodec: MessageCodec = {
  toRest(desc, msg, walk, where) {
    const member = oneofMember(desc, msg, 'points_selector_one_of');
    if (!member) throw invalidArgument(`${where}: a points selector needs points or filter`);
    const converted = walk.fieldToRest(member.field, member.value, where);
    return member.field.name === 'points' ? { points: converted } : { filter: converted };
  },
};
