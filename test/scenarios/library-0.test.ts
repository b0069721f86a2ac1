import { describe } from 'vitest';
import { libraryShard } from './library.test-helper.js';

describe('scenario library, shard 1 of 2', () => libraryShard(0, 2));
