/** A PackStream structure: a one-byte signature (the type's tag) and its fields. */
export class Structure {
  constructor(
    readonly signature: number,
    readonly fields: PackValue[],
  ) {}
}

/**
 * Every value PackStream carries. Integers decode to a number when they fit in 2^53 and to a
 * bigint beyond; a Uint8Array is Bytes; a plain object is a Map.
 */
export type PackValue = null | boolean | number | bigint | string | Uint8Array | PackValue[] | Structure | { [key: string]: PackValue };
