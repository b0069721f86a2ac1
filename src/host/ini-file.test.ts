import { describe, expect, it } from 'vitest';
import { ConfigError, IniFile, isIpv4, readers } from './ini-file.js';

const problem = (result: unknown) => (typeof result === 'object' && result !== null && 'problem' in result ? (result as { problem: string }).problem : undefined);

describe('IniFile.parse (boost property_tree ini, stricter)', () => {
  it('splits a line at its first "=", trims both sides, and skips ; and # comments and blank lines', () => {
    const ini = IniFile.parse('# a hash comment\n[s]\n  ; a semicolon comment\n\n  k = a=b=c  \r\n  empty=\n', 'x.ini');
    expect(ini.entry('s', 'k')).toEqual({ key: 'k', value: 'a=b=c', line: 5 });
    expect(ini.entry('s', 'empty')?.value).toBe('');
    expect(ini.section('s')?.entries).toHaveLength(2);
  });

  it('refuses a key given twice in a section even with the same value, naming both lines', () => {
    expect(() => IniFile.parse('[s]\nk=1\nk=1\n', 'x.ini')).toThrow(new ConfigError('x.ini:3: k: given twice in [s] (first at line 2)'));
    // the same key in two sections is two keys
    expect(IniFile.parse('[a]\nk=1\n[b]\nk=1\n', 'x.ini').entry('b', 'k')?.line).toBe(4);
  });
});

describe('value readers', () => {
  it('ports: 1..65535 inclusive', () => {
    expect(readers.port('1')).toBe(1);
    expect(readers.port('65535')).toBe(65535);
    expect(problem(readers.port('0'))).toBe('port 0 is out of range 1..65535');
    expect(problem(readers.port('65536'))).toBe('port 65536 is out of range 1..65535');
    expect(problem(readers.port('-1'))).toBe('"-1" is not a port number');
  });

  it('endpoints: an IPv4 address and a port in range', () => {
    expect(readers.endpoint('127.0.0.1:65535')).toEqual({ host: '127.0.0.1', port: 65535 });
    expect(problem(readers.endpoint('127.0.0.1:0'))).toBe('port 0 is out of range 1..65535');
    expect(problem(readers.endpoint('127.0.0.1:65536'))).toBe('port 65536 is out of range 1..65535');
    expect(problem(readers.endpoint('127.0.0.256:30300'))).toMatch(/is not ip:port/);
  });

  it('IPv4 addresses: four parts of 0..255', () => {
    expect(isIpv4('0.0.0.0')).toBe(true);
    expect(isIpv4('255.255.255.255')).toBe(true);
    for (const bad of ['256.0.0.1', '1.2.3.256', '1.2.3', '1.2.3.4.5', '1.2.3.1000', 'a.b.c.d', '1..2.3']) expect(isIpv4(bad), bad).toBe(false);
  });

  it('booleans in every spelling boost and FISCO accept, and nothing else', () => {
    for (const yes of ['true', 'TRUE', '1', 'on', 'yes']) expect(readers.bool(yes), yes).toBe(true);
    for (const no of ['false', 'False', '0', 'off', 'no']) expect(readers.bool(no), no).toBe(false);
    expect(problem(readers.bool('maybe'))).toBe('"maybe" is not true or false');
  });

  it('integers within inclusive bounds', () => {
    const read = readers.integer(3, 10);
    expect(read('3')).toBe(3);
    expect(read('10')).toBe(10);
    expect(problem(read('2'))).toBe('2 is out of range 3..10');
    expect(problem(read('11'))).toBe('11 is out of range 3..10');
    expect(problem(read('1e3'))).toBe('"1e3" is not an integer');
  });
});
