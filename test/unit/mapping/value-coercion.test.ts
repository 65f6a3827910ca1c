/**
 * Field value conversions with Java's semantics: Double.parseDouble's grammar,
 * half-float rounding, IP address canonical forms, Double.toString in messages.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { javaDoubleString, javaParseDouble, roundToHalfFloat, toIp, toLong } from '../../../shared/engine/mapping/value-coercion.ts';

describe('Java number grammar', () => {
  it('Double.parseDouble accepts whitespace, exponents, type suffixes, hex, NaN and Infinity', () => {
    assert.equal(javaParseDouble(' 1e3 '), 1000);
    assert.equal(javaParseDouble('1.5f'), 1.5);
    assert.equal(javaParseDouble('-.5'), -0.5);
    assert.equal(javaParseDouble('0x1p4'), 16);
    assert.equal(javaParseDouble('-Infinity'), -Infinity);
    assert.ok(Number.isNaN(javaParseDouble('NaN')));
    assert.equal(javaParseDouble('abc'), null);
    assert.equal(javaParseDouble(''), null);
    assert.equal(javaParseDouble('1,5'), null);
  });

  it('Double.toString as Elasticsearch prints doubles in messages', () => {
    assert.equal(javaDoubleString(1.5), '1.5');
    assert.equal(javaDoubleString(3), '3.0');
    assert.equal(javaDoubleString(1e10), '1.0E10');
    assert.equal(javaDoubleString(1.25e-5), '1.25E-5');
    assert.equal(javaDoubleString(Infinity), 'Infinity');
  });

  it('long strings: Long.parseLong first, then BigDecimal with range and decimal checks', () => {
    assert.equal(toLong('42', true), 42);
    assert.equal(toLong('4.9', true), 4);
    assert.equal(toLong('1e3', true), 1000);
    assert.throws(() => toLong('4.9', false), /Long value passed as String/);
    assert.throws(() => toLong('1e30', true), /Value \[1e30\] is out of range for a long/);
  });
});

describe('half floats', () => {
  it('round to the nearest half-precision value', () => {
    assert.equal(roundToHalfFloat(1), 1);
    assert.equal(roundToHalfFloat(0.1), 0.0999755859375);
    assert.equal(roundToHalfFloat(65504), 65504);
    assert.equal(roundToHalfFloat(65519), 65504);
    assert.equal(roundToHalfFloat(65520), Infinity);
    assert.equal(roundToHalfFloat(1 + 2 ** -11), 1); // a tie rounds to even
    assert.equal(roundToHalfFloat(2 ** -24), 2 ** -24); // smallest subnormal
  });
});

describe('ip addresses', () => {
  it('print as Java prints them', () => {
    assert.equal(toIp('192.168.0.1'), '192.168.0.1');
    assert.equal(toIp('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(toIp('2001:0db8:0000:0000:0001:0000:0000:0001'), '2001:db8::1:0:0:1');
    assert.equal(toIp('::ffff:192.168.0.1'), '192.168.0.1');
    assert.equal(toIp('::'), '::');
  });

  it('refuse what InetAddresses refuses', () => {
    for (const bad of ['1.2.3', '01.2.3.4', '1.2.3.256', '1::2::3', 'abc', '12345::']) {
      assert.throws(() => toIp(bad), { message: `'${bad}' is not an IP string literal.` });
    }
  });
});
