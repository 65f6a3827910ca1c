/**
 * TopicAdmin.highWatermark against a fake kafkajs admin: kafkajs throws a
 * TypeError from fetchTopicOffsets while its metadata lacks a new topic's
 * leaders; the watermark is asked again instead of failing the copy that
 * wanted it (a copy whose follower failed that way stayed started while
 * applying nothing, and every write to it waited for its timeout).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kafka } from 'kafkajs';
import { TopicAdmin } from '../../../shared/log/kafka/topic-admin.ts';

const GAP = "Cannot destructure property 'partitions' of 'low.pop(...)' as it is undefined.";

function fakeKafka(answers: (() => unknown)[]): { kafka: Kafka; calls: () => number } {
  let calls = 0;
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => ({
      topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, partitionErrorCode: 0, leader: 1 }] })),
    }),
    fetchTopicOffsets: async () => {
      const answer = answers[Math.min(calls, answers.length - 1)]!;
      calls++;
      return answer();
    },
  };
  return { kafka: { admin: () => admin } as unknown as Kafka, calls: () => calls };
}

function topicAdmin(kafka: Kafka, topicReadyTimeoutMs = 5000): TopicAdmin {
  return new TopicAdmin(kafka, { retry: { retries: 0 }, replicationFactor: -1, topicReadyTimeoutMs, warn: () => undefined });
}

test('a high watermark asked while kafkajs lacks the topic\'s leaders is asked again, and answered', async () => {
  const gap = () => {
    throw new TypeError(GAP);
  };
  const { kafka, calls } = fakeKafka([gap, () => [], () => [{ partition: 0, offset: '7', high: '7', low: '0' }]]);
  assert.equal(await topicAdmin(kafka).highWatermark('t', 0), 7);
  assert.equal(calls(), 3, 'the TypeError and the answer without the partition were both asked again');
});

test('other failures of fetchTopicOffsets are not retried: the error names the topic and partition', async () => {
  const { kafka, calls } = fakeKafka([
    () => {
      throw new Error('broker exploded');
    },
  ]);
  await assert.rejects(topicAdmin(kafka).highWatermark('t', 0), /cannot read the high watermark of topic \[t\] partition \[0\]: broker exploded/);
  assert.equal(calls(), 1);
});

test('a metadata gap that lasts past the topic-ready timeout fails with the kafkajs error', async () => {
  const { kafka } = fakeKafka([
    () => {
      throw new TypeError(GAP);
    },
  ]);
  const started = Date.now();
  await assert.rejects(topicAdmin(kafka, 300).highWatermark('t', 0), /cannot read the high watermark of topic \[t\] partition \[0\]: Cannot destructure/);
  assert.ok(Date.now() - started < 3000, 'gave up near the timeout');
});
