import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/common/format-bytes';

describe('formatBytes', () => {
  it('writes the limits and quotas in the binary units they are set in', () => {
    expect(formatBytes(10 * 1024 ** 3)).toBe('10 GiB'); // MAX_USER_BYTES, not "11 GB"
    expect(formatBytes(100 * 1024 ** 2)).toBe('100 MiB'); // MAX_TOTAL_BYTES
    expect(formatBytes(25 * 1024 ** 2)).toBe('25 MiB'); // MAX_FILE_BYTES
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
  });

  it('keeps one decimal below 10 and none above, and bytes as they are', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1234567)).toBe('1.2 MiB');
    expect(formatBytes(10 * 1024 - 1)).toBe('10 KiB');
  });

  it('shows a value that rounds to 1024 of a unit in the next one', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MiB');
    expect(formatBytes(1024 ** 3 - 1)).toBe('1.0 GiB');
  });
});
