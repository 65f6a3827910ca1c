/** Shared fixtures of the mapping tests. */
import { PASSINFO_INDEX_BODY } from '../../../services/passinfo/pass-record-generator.ts';

/** The seed's pass-record mapping (the reference application's index). */
export const PASSINFO = PASSINFO_INDEX_BODY.mappings.passinfo;
