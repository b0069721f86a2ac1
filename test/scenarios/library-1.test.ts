import { describe } from 'vitest';
import { libraryShard } from './library.test-helper.js';

describe('scenario library, shard 2 of 2', () => libraryShard(1, 2));
