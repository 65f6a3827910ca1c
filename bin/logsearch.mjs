#!/usr/bin/env node
// `npx logsearch start [--setting value ...]`: runs a node from the TypeScript sources.
import { register } from 'tsx/esm/api';

register();
await import('../services/node/main.ts');
