// The bytes of JSON's syntax, for the scanners that find a list's records without parsing the whole body
// (core/transport/json-buffer.ts in memory, core/transport/disk-list.ts from a file).

/** `"` */
export const QUOTE = 0x22;
/** `\` */
export const BACKSLASH = 0x5c;
/** `,` */
export const COMMA = 0x2c;
/** `:` */
export const COLON = 0x3a;
/** `[` */
export const OPEN_BRACKET = 0x5b;
/** `]` */
export const CLOSE_BRACKET = 0x5d;
/** `{` */
export const OPEN_BRACE = 0x7b;
/** `}` */
export const CLOSE_BRACE = 0x7d;
/** The key of the envelope's list, as bytes. */
export const DATA_KEY = Buffer.from('"data"');
/** JSON's white space (RFC 8259 §2). */
export const isSpace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
