/** A PackStream structure: a one-byte signature (the type's tag) and its fields. */
export class Structure {
  constructor(
    readonly signature: number,
    readonly fields: PackValue[],
  ) {}
}

/** A Float whose value is whole (1.0): a plain number that is a safe integer packs as an Integer. */
export class PackFloat {
  constructor(readonly value: number) {}
}

/**
 * Every value PackStream carries. A Float decodes to a number, or to a PackFloat when its value is whole. Integers decode to a number when they fit in 2^53 and to a
 * bigint beyond; a Uint8Array is Bytes; a plain object is a Map.
 */
export type PackValue = null | boolean | number | PackFloat | bigint | string | Uint8Array | PackValue[] | Structure | { [key: string]: PackValue };
