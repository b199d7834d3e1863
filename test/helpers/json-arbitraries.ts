import fc from 'fast-check';

/** Any API envelope with a list of any JSON values: what the list scanners (json-buffer, disk-list) must read. */
export const envelope = fc.record({
  status: fc.constantFrom('SUCCESS', 'ERROR'),
  code: fc.integer(),
  message: fc.string({ unit: 'grapheme' }),
  data: fc.array(fc.jsonValue(), { maxLength: 8 }),
});

/** An envelope's JSON text with one character deleted, doubled or replaced by one of JSON's syntax characters. */
export const damagedEnvelope = fc
  .tuple(envelope, fc.nat(), fc.constantFrom('delete', 'double', '"', '\\', ',', ']', '}', '[', ' '))
  .map(([env, at, how]) => {
    const text = JSON.stringify(env);
    const i = at % text.length;
    if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
    if (how === 'double') return text.slice(0, i + 1) + text.slice(i);
    return text.slice(0, i) + how + text.slice(i + 1);
  });
