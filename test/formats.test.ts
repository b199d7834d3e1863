import { describe, expect, test } from 'vitest';
import { timeFormats, validate } from '../core/spec/schemas.js';

/** The spec's words on formats (README "The spec's latitude"), each reading pinned by examples either way. */
describe('formats say only what the spec says', () => {
  const email = (v: string): boolean => validate('merchant#/properties/email', v).length === 0;

  test('§2.5 e-mail: local@domain in any script (RFC 6531), nothing more', () => {
    for (const ok of [
      'owner@golden-dragon.example',
      '店主@金龙酒家.example',
      'dragón@café.example',
      'a+tag@x',
      '"a@b"@example.com',
    ])
      expect(email(ok), ok).toBe(true);
    for (const bad of [
      'owner.golden-dragon.example',
      '@example.com',
      'owner@',
      'own er@example.com',
      'owner@example..com',
      'owner@.example',
      'a\u0000@x',
    ])
      expect(email(bad), bad).toBe(false);
  });

  test('§2.4 "Device IP": an IPv4 or IPv6 address in any of its text forms, nothing else', () => {
    const f = timeFormats['spec-ip'];
    for (const ok of ['10.0.0.1', '255.255.255.255', '2001:db8::5', '::1', '::ffff:10.0.0.1', 'fe80::1%eth0'])
      expect(f(ok), ok).toBe(true);
    for (const bad of ['192.168.10.335', '10.0.0', '010.0.0.1', 'tablet-1.local', '', ' 10.0.0.1', '2001:db8:::5'])
      expect(f(bad), bad).toBe(false);
  });

  test('§2.2–2.4 YYYY-MM-DD HH:MM: exactly that, a real date', () => {
    const f = timeFormats['spec-minute'];
    for (const ok of ['2024-03-01 12:30', '2024-02-29 00:00', '1999-12-31 23:59']) expect(f(ok), ok).toBe(true);
    for (const bad of [
      '2024-03-01 12:30:00',
      '2024-03-01T12:30',
      '2023-02-29 10:00',
      '2024-13-01 10:00',
      '2024-03-01 24:00',
      '2024-3-1 12:30',
    ])
      expect(f(bad), bad).toBe(false);
  });

  test('§2.4–2.5 ISO 8601 UTC with fractional seconds: Z or +00:00, "." or ",", any number of fraction digits', () => {
    const f = timeFormats['spec-iso-utc'];
    for (const ok of [
      '2024-01-05T08:00:00.000000Z',
      '2024-01-05T08:00:00.5Z',
      '2024-01-05T08:00:00,123Z',
      '2024-01-05T08:00:00.123+00:00',
      '2016-12-31T23:59:60.0Z',
    ])
      expect(f(ok), ok).toBe(true);
    for (const bad of [
      '2024-01-05T08:00:00Z',
      '2024-01-05T08:00:00.1+08:00',
      '2024-01-05 08:00:00.1Z',
      '2024-01-05T08:00.1Z',
      '2024-02-30T08:00:00.1Z',
      '2024-01-05T08:00:00.Z',
    ])
      expect(f(bad), bad).toBe(false);
  });
});
