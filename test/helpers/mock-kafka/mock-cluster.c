/*
 * A librdkafka mock Kafka cluster driven over stdin, for the Kafka commit-log
 * tests (DESIGN.md section 6). The mock speaks the real Kafka wire protocol
 * over TCP on 127.0.0.1, so kafkajs talks to it as to a real cluster.
 *
 * Usage: mock-cluster [brokers]            (default 3 brokers, ids 1..N)
 *
 * First stdout line: the bootstrap servers, comma-separated host:port.
 * Then one command per stdin line, one answer per command: "ok" or
 * "error <text>".
 *
 *   create_topic <name> <partitions> <replication>
 *   delete_topic <name>
 *   broker_down <id>            refuse and drop connections (no leader change)
 *   broker_up <id>
 *   leader <topic> <partition> <broker>
 *   produce_errors <count> <kafka error code>   the next <count> Produce
 *                                               requests fail with the code
 *   rtt <broker> <ms>
 *   rebalance_delay <ms>        group.initial.rebalance.delay.ms (default 0 here)
 *   quit
 *
 * Exits when stdin closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdkafka.h"
#include "rdkafka_mock.h"

/* Kafka protocol ApiKey of Produce requests. */
#define API_KEY_PRODUCE 0
#define MAX_INJECTED_ERRORS 10000
#define MAX_LINE 4096

static rd_kafka_mock_cluster_t *mc;

/* Parses a whole token as a base-10 integer in [min, max]. */
static int parse_int(const char *s, long min, long max, long *out) {
        char *end;
        long v;
        if (s == NULL)
                return -1;
        errno = 0;
        v     = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -1;
        *out = v;
        return 0;
}

static void answer(rd_kafka_resp_err_t err) {
        if (err)
                printf("error %s: %s\n", rd_kafka_err2name(err),
                       rd_kafka_err2str(err));
        else
                printf("ok\n");
}

/* Runs one command; returns 1 when the helper should exit. */
static int run_command(char *line) {
        char *save = NULL;
        char *cmd  = strtok_r(line, " \t", &save);
        char *a    = strtok_r(NULL, " \t", &save);
        char *b    = strtok_r(NULL, " \t", &save);
        char *c    = strtok_r(NULL, " \t", &save);
        char *rest = strtok_r(NULL, " \t", &save);
        long x, y, z;

        if (cmd == NULL) {
                printf("error empty command\n");
                return 0;
        }

        if (!strcmp(cmd, "quit")) {
                printf("ok\n");
                return 1;
        }

        if (!strcmp(cmd, "create_topic")) {
                if (!a || rest || parse_int(b, 1, 100000, &x) ||
                    parse_int(c, 1, 1000, &y)) {
                        printf("error usage: create_topic <name> "
                               "<partitions> <replication>\n");
                        return 0;
                }
                answer(rd_kafka_mock_topic_create(mc, a, (int)x, (int)y));
        } else if (!strcmp(cmd, "delete_topic")) {
                if (!a || b) {
                        printf("error usage: delete_topic <name>\n");
                        return 0;
                }
                answer(rd_kafka_mock_topic_delete(mc, a));
        } else if (!strcmp(cmd, "broker_down") || !strcmp(cmd, "broker_up")) {
                if (parse_int(a, -1, 100000, &x) || b) {
                        printf("error usage: %s <broker id>\n", cmd);
                        return 0;
                }
                answer(!strcmp(cmd, "broker_down")
                           ? rd_kafka_mock_broker_set_down(mc, (int32_t)x)
                           : rd_kafka_mock_broker_set_up(mc, (int32_t)x));
        } else if (!strcmp(cmd, "leader")) {
                if (!a || rest || parse_int(b, 0, 100000, &x) ||
                    parse_int(c, -1, 100000, &y)) {
                        printf("error usage: leader <topic> <partition> "
                               "<broker id>\n");
                        return 0;
                }
                answer(rd_kafka_mock_partition_set_leader(mc, a, (int32_t)x,
                                                          (int32_t)y));
        } else if (!strcmp(cmd, "produce_errors")) {
                rd_kafka_resp_err_t *errs;
                if (parse_int(a, 1, MAX_INJECTED_ERRORS, &x) ||
                    parse_int(b, -200, 1000, &y) || c) {
                        printf("error usage: produce_errors <count> "
                               "<kafka error code>\n");
                        return 0;
                }
                errs = calloc((size_t)x, sizeof(*errs));
                if (errs == NULL) {
                        printf("error out of memory\n");
                        return 0;
                }
                for (z = 0; z < x; z++)
                        errs[z] = (rd_kafka_resp_err_t)y;
                rd_kafka_mock_push_request_errors_array(mc, API_KEY_PRODUCE,
                                                        (size_t)x, errs);
                free(errs);
                printf("ok\n");
        } else if (!strcmp(cmd, "rtt")) {
                if (parse_int(a, -1, 100000, &x) ||
                    parse_int(b, 0, 3600000, &y) || c) {
                        printf("error usage: rtt <broker id> <ms>\n");
                        return 0;
                }
                answer(rd_kafka_mock_broker_set_rtt(mc, (int32_t)x, (int)y));
        } else if (!strcmp(cmd, "rebalance_delay")) {
                if (parse_int(a, 0, 3600000, &x) || b) {
                        printf("error usage: rebalance_delay <ms>\n");
                        return 0;
                }
                rd_kafka_mock_group_initial_rebalance_delay_ms(mc, (int32_t)x);
                printf("ok\n");
        } else {
                printf("error unknown command %s\n", cmd);
        }
        return 0;
}

int main(int argc, char **argv) {
        char errstr[512];
        char line[MAX_LINE];
        long brokers = 3;
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;

        if (argc > 2 || (argc == 2 && parse_int(argv[1], 1, 100, &brokers))) {
                fprintf(stderr, "usage: %s [brokers 1..100]\n", argv[0]);
                return 2;
        }

        /* The mock cluster needs a client instance for its bookkeeping; it
         * never connects anywhere. */
        conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "log_level", "3", errstr,
                              sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "%s\n", errstr);
                return 1;
        }
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (rk == NULL) {
                fprintf(stderr, "rd_kafka_new: %s\n", errstr);
                return 1;
        }

        mc = rd_kafka_mock_cluster_new(rk, (int)brokers);
        if (mc == NULL) {
                fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
                rd_kafka_destroy(rk);
                return 1;
        }
        /* kafkajs sends admin and InitProducerId requests to the controller,
         * so it must be a real broker id (the mock's default is not). */
        rd_kafka_mock_set_controller_id(mc, 1);
        /* Every log instance joins groups of its own; do not make each first
         * join wait the broker default of 3 s. */
        rd_kafka_mock_group_initial_rebalance_delay_ms(mc, 0);

        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
        fflush(stdout);

        while (fgets(line, sizeof(line), stdin) != NULL) {
                size_t len = strlen(line);
                int quit;
                if (len > 0 && line[len - 1] != '\n' && !feof(stdin)) {
                        int ch;
                        while ((ch = getchar()) != EOF && ch != '\n')
                                ;
                        printf("error line longer than %d bytes\n",
                               MAX_LINE - 2);
                        fflush(stdout);
                        continue;
                }
                while (len > 0 &&
                       (line[len - 1] == '\n' || line[len - 1] == '\r'))
                        line[--len] = '\0';
                quit = run_command(line);
                fflush(stdout);
                if (quit)
                        break;
        }

        rd_kafka_mock_cluster_destroy(mc);
        rd_kafka_destroy(rk);
        return 0;
}
