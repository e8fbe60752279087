// The router as a typed client sees it. A tRPC router's type carries its context — for Tether the server's Services:
// the Store, the database drivers, Prisma, Node's types — which no client can see or send. `AppRouter` keeps what
// a client uses (every procedure's input and output, the error shape, the transformer) and erases the context to
// `object`. The client package's declarations are bundled from this file (scripts/build-client.mjs), so a client's
// type check never reads a server module.
import type { TRPCBuiltRouter } from '@trpc/server';
import type { AppRouter as ServerRouter } from '../server/api/root';

type ServerRoot = ServerRouter['_def']['_config']['$types'];

export type AppRouter = TRPCBuiltRouter<
  {
    ctx: object;
    meta: ServerRoot['meta'];
    errorShape: ServerRoot['errorShape'];
    transformer: ServerRoot['transformer'];
  },
  ServerRouter['_def']['record']
>;
