// The bodies the domain builds (TypeScript interfaces) and the schemas the OpenAPI document is generated from
// are the same types, field for field and optional for optional — checked by `tsc` (npm run typecheck), so neither can
// change without the other. At run time the REST tests hold every real answer to the document (tests/support/openapi-check.ts).
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { ZAttachmentBody } from '../../src/server/domain/attachments/schemas';
import type { AttachmentBody } from '../../src/server/domain/attachments/upload';
import type { EventPage } from '../../src/server/domain/events/history';
import type { EventRecord, RevisionBody } from '../../src/server/model/events';
import type {
  ZDeliveryBody,
  ZEventPage,
  ZEventRecord,
  ZRevisionBody,
  ZWebhookBody,
} from '../../src/server/domain/events/schemas';
import type { DeliveryBody, WebhookBody } from '../../src/server/domain/events/webhook-bodies';
import type { ZTaskBody } from '../../src/server/domain/tasks/schemas';
import type { TaskBody } from '../../src/server/model/task';
import type { WorkspaceDeletion } from '../../src/server/domain/workspaces/delete-workspace';
import type { ZWorkspaceDeletion } from '../../src/server/domain/workspaces/schemas';

describe('response bodies and their schemas are one type', () => {
  it('task, event, revision, webhook, delivery, attachment and workspace deletion bodies', () => {
    expectTypeOf<TaskBody>().toEqualTypeOf<z.output<typeof ZTaskBody>>();
    // EventRecord is an intersection (payload & seq), which toEqualTypeOf tells apart from one object type: each way.
    expectTypeOf<EventRecord>().toExtend<z.output<typeof ZEventRecord>>();
    expectTypeOf<z.output<typeof ZEventRecord>>().toExtend<EventRecord>();
    expectTypeOf<EventPage>().toExtend<z.output<typeof ZEventPage>>();
    expectTypeOf<z.output<typeof ZEventPage>>().toExtend<EventPage>();
    expectTypeOf<RevisionBody>().toEqualTypeOf<z.output<typeof ZRevisionBody>>();
    expectTypeOf<WebhookBody>().toEqualTypeOf<z.output<typeof ZWebhookBody>>();
    expectTypeOf<DeliveryBody>().toEqualTypeOf<z.output<typeof ZDeliveryBody>>();
    expectTypeOf<AttachmentBody>().toEqualTypeOf<z.output<typeof ZAttachmentBody>>();
    expectTypeOf<WorkspaceDeletion>().toEqualTypeOf<z.output<typeof ZWorkspaceDeletion>>();
  });
});
