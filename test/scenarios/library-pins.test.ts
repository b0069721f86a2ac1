import { describe, expect, it } from 'vitest';
import { libraryFiles, PINNED } from './library.test-helper.js';

describe('scenario library pins', () => {
  it('pins a digest for every file in scenarios/, and for no file that is gone', () => {
    expect(Object.keys(PINNED).sort()).toEqual(libraryFiles());
  });
});
