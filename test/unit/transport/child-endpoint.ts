/**
 * A transport endpoint in its own process, for child-process.test.ts: serves
 * WAIT_APPLIED (answers after `offset` ms) and NODE_STATUS, prints its port
 * as one JSON line, and exits when stdin closes.
 */
import { TransportServer } from '../../../services/node/transport/transport-server.ts';
import { NODE_STATUS, WAIT_APPLIED } from '../../../services/node/transport/rpc-messages.ts';

const server = new TransportServer();
server
  .handle(WAIT_APPLIED, async (r) => {
    await new Promise((res) => setTimeout(res, r.offset));
    return { applied: true, applied_offset: r.offset };
  })
  .handle(NODE_STATUS, () => ({ node_name: `child-${process.pid}`, copies: [] }));
const port = await server.listen('127.0.0.1', 0);
process.stdout.write(JSON.stringify({ port }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
