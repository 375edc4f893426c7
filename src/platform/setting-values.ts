/**
 * How one setting's value is read and refused, shared by settings.ts and the settings of one
 * concern kept beside it (analytics-settings.ts). Type imports only: `npm start` loads these
 * files under Node.
 */
import type { SettingVars } from './settings.ts';

/** A setting whose value cannot be used; the message names it and says what it must be. */
export class InvalidSetting extends Error {
  override name = 'InvalidSetting';
  readonly setting: keyof SettingVars;

  // Plain fields, not parameter properties: Node's type stripping (scripts/start.mjs) cannot compile those.
  /** `shown`: what the message says the value is; a secret's is described, never written out. */
  constructor(setting: keyof SettingVars, value: unknown, expected: string, shown = JSON.stringify(value)) {
    super(`The setting ${setting} is ${shown}; it must be ${expected}.`);
    this.setting = setting;
  }
}

/** A whole number from `min` up, written in decimal digits (no sign, exponent or fraction). */
export function wholeNumber(vars: SettingVars, setting: keyof SettingVars, min: number): number {
  const value = vars[setting];
  const text = typeof value === 'number' ? String(value) : value;
  const parsed = typeof text === 'string' && /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min) {
    throw new InvalidSetting(setting, value, `a whole number of at least ${min}`);
  }
  return parsed;
}
