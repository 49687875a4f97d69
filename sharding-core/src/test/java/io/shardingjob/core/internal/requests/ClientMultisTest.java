package io.shardingjob.core.internal.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.testing.RequestCounter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ZKConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The multis of one client's jobs sent together while others are on their way, against a real ZooKeeper server. The
 * requests on their way are held back until the test has queued the others, so that they are certain to be merged.
 */
class ClientMultisTest extends ZooKeeperTestSupport {

    private CuratorFramework client;

    private ClientRequests requests;

    private RequestCounter counter;

    private final CompletableFuture<Void> gate = new CompletableFuture<>();

    private final AtomicBoolean first = new AtomicBoolean(true);

    private final ClientMultis multis = new ClientMultis(NAMESPACE);

    /** Sends as the ledger does, holding the first request back until the gate opens. */
    private final ClientMultis.Sender held = (name, ops) -> first.getAndSet(false)
            ? gate.thenCompose(open -> requests.sendMulti(name, ops))
            : requests.sendMulti(name, ops);

    @BeforeEach
    void connect() throws Exception {
        client = newClient();
        client.create().forPath("/m");
        requests = new ClientRequests(client, "Ledger");
        counter = RequestCounter.attachTo(client);
    }

    @Test
    void multisAskedForWhileOneIsOnItsWayGoInOneRequestAndEachGetsItsOwnAnswer() throws Exception {
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            answers.add(queue(held, "Create", List.of(create("/m/n" + i), create("/m/n" + i + "-x"))));
        }
        long before = counter.counts().ledger().total();
        gate.complete(null);

        for (CompletableFuture<MultiAnswer> answer : answers) {
            assertThat(answer.join().ok()).isTrue();
            assertThat(answer.join().results()).hasSize(2).allMatch(OpResult.CreateResult.class::isInstance);
        }
        assertThat(client.getChildren().forPath("/m")).hasSize(40);
        assertThat(counter.counts().ledger().total() - before)
                .as("the held request, then the 19 queued behind it in one")
                .isEqualTo(2);
    }

    @Test
    void aRefusedPartGetsItsOwnRefusalWhileThePartsAroundItAreWrittenAllTheSame() throws Exception {
        client.create().forPath("/m/versioned", bytes("v0"));
        CompletableFuture<MultiAnswer> held = queue(this.held, "Create", List.of(create("/m/held")));
        CompletableFuture<MultiAnswer> before = queue(this.held, "Create", List.of(create("/m/before")));
        CompletableFuture<MultiAnswer> refused = queue(
                this.held,
                "SetData",
                List.of(create("/m/refused-create"), Op.setData(requests.full("/m/versioned"), bytes("v9"), 7)));
        CompletableFuture<MultiAnswer> after = queue(this.held, "Create", List.of(create("/m/after")));
        gate.complete(null);

        assertThat(held.join().ok()).isTrue();
        assertThat(before.join().ok()).isTrue();
        assertThat(after.join().ok()).isTrue();
        MultiAnswer refusal = refused.join();
        assertThat(refusal.ok()).isFalse();
        assertThat(refusal.results()).hasSize(2);
        assertThat(refusal.failedAt()).isEqualTo(1);
        assertThat(refusal.errorAt(1)).isEqualTo(KeeperException.Code.BADVERSION);
        assertThat(client.getChildren().forPath("/m"))
                .containsExactlyInAnyOrder("versioned", "held", "before", "after");
    }

    @Test
    void readsGoTogetherAndEachReadAnswersForItself() throws Exception {
        client.create().forPath("/m/a", bytes("A"));
        client.create().forPath("/m/a/child");
        CompletableFuture<MultiAnswer> held = queue(this.held, "Multi", List.of(read("/m/a")));
        CompletableFuture<MultiAnswer> listing =
                queue(this.held, "Multi", List.of(Op.getChildren(requests.full("/m/a"))));
        CompletableFuture<MultiAnswer> missing = queue(this.held, "Multi", List.of(read("/m/none")));
        CompletableFuture<MultiAnswer> data = queue(this.held, "Multi", List.of(read("/m/a")));
        gate.complete(null);

        assertThat(((OpResult.GetDataResult) held.join().results().get(0)).getData())
                .isEqualTo(bytes("A"));
        assertThat(((OpResult.GetChildrenResult) listing.join().results().get(0)).getChildren())
                .containsExactly("child");
        assertThat(missing.join().results().get(0)).isInstanceOf(OpResult.ErrorResult.class);
        assertThat(((OpResult.GetDataResult) data.join().results().get(0)).getData())
                .isEqualTo(bytes("A"));
    }

    @Test
    void readsWhoseMergedAnswerWasMoreThanTheClientTakesAreAskedAloneTheNextTime() throws Exception {
        // Each listing answers about 20 kB, under the 48 kB this client takes in one answer; four merged do not.
        for (int listing = 0; listing < 4; listing++) {
            client.create().forPath("/m/big" + listing);
            for (int child = 0; child < 200; child++) {
                client.create().forPath("/m/big" + listing + "/" + "x".repeat(90) + child);
            }
        }
        ZKClientConfig small = new ZKClientConfig();
        small.setProperty(ZKConfig.JUTE_MAXBUFFER, String.valueOf(48 * 1024));
        CuratorFramework tight = closeAfterTest(CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100))
                .zkClientConfig(small)
                .build());
        tight.start();
        assertThat(tight.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        ClientRequests tightRequests = new ClientRequests(tight, "Ledger");
        Gated heldTight = new Gated(tightRequests);

        List<CompletableFuture<MultiAnswer>> held = heldTight.occupyReads();
        List<CompletableFuture<MultiAnswer>> merged = listBigOnes(heldTight, tightRequests);
        heldTight.open();

        held.forEach(each -> assertThat(each.join().ok()).isTrue());
        for (CompletableFuture<MultiAnswer> listing : merged) {
            assertThatThrownBy(() -> listing.get(30, TimeUnit.SECONDS))
                    .as("the merged answer dropped the connection")
                    .hasCauseInstanceOf(KeeperException.ConnectionLossException.class);
        }
        // Asked again, as the cache does, until the connection is back: then each goes alone and is answered.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
            for (CompletableFuture<MultiAnswer> listing : listBigOnes(heldTight, tightRequests)) {
                assertThat(((OpResult.GetChildrenResult) listing.get(10, TimeUnit.SECONDS)
                                        .results()
                                        .get(0))
                                .getChildren())
                        .hasSize(200);
            }
        });
    }

    private List<CompletableFuture<MultiAnswer>> listBigOnes(ClientMultis.Sender sender, ClientRequests through) {
        List<CompletableFuture<MultiAnswer>> listings = new ArrayList<>();
        for (int listing = 0; listing < 4; listing++) {
            listings.add(queue(sender, "Multi", List.of(Op.getChildren(through.full("/m/big" + listing)))));
        }
        return listings;
    }

    @Test
    void listingsNotReadYetGoAFewARequestAndOnceKnownToBeSmallManyGoTogether() throws Exception {
        for (int i = 0; i < 12; i++) {
            client.create().forPath("/m/l" + i);
        }
        assertThat(requestsToList(12))
                .as("12 listings not read yet: four a request, until one was answered")
                .startsWith(4L);
        assertThat(requestsToList(12))
                .as("the same listings, known to be small: in one")
                .containsExactly(12L);
    }

    @Test
    void aListingNotReadYetIsReckonedFromItsSiblingsAlreadyRead() throws Exception {
        for (int i = 0; i < 24; i++) {
            client.create().creatingParentsIfNeeded().forPath("/m/fires/f" + i + "/claim");
        }
        assertThat(requestsToList("/m/fires/f", 0, 12))
                .as("the first fires' listings, unknown: four a request, until one was answered")
                .startsWith(4L);
        assertThat(requestsToList("/m/fires/f", 12, 24))
                .as("other fires of the same job, never listed but reckoned from the first: in one")
                .containsExactly(12L);
    }

    /** Lists that many nodes behind held requests, and counts the listings of each request. */
    private List<Long> requestsToList(int nodes) {
        return requestsToList("/m/l", 0, nodes);
    }

    /**
     * Lists the nodes {@code prefix + from .. prefix + (to - 1)} behind requests held on their way, and counts the
     * listings of each request that listed any.
     */
    private List<Long> requestsToList(String prefix, int from, int to) {
        Gated gated = new Gated(requests);
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>(gated.occupyReads());
        for (int i = from; i < to; i++) {
            answers.add(queue(gated, "Multi", List.of(Op.getChildren(requests.full(prefix + i)))));
        }
        gated.open();
        answers.forEach(CompletableFuture::join);
        return gated.perRequest(op -> op instanceof Op.GetChildren);
    }

    @Test
    void aNodesDataNotReadYetIsReckonedFromTheSameNodeOfItsKin() throws Exception {
        for (int i = 0; i < 24; i++) {
            client.create().creatingParentsIfNeeded().forPath("/j" + i + "/config", bytes("cron=0 * * * * ?"));
        }
        assertThat(requestsToRead("/j", 0, 12))
                .as("the first jobs' configurations, unknown and reckoned at 200 kB: two a request, until one was"
                        + " answered")
                .startsWith(2L);
        assertThat(requestsToRead("/j", 12, 24))
                .as("the other jobs' configurations, reckoned from the first ones': in one")
                .containsExactly(12L);
    }

    @Test
    void configurationsNearTheLimitAreNeverMergedPastWhatOneAnswerCarries() throws Exception {
        // Most jobs' configurations are a few lines: one of those read first tells nothing of the large ones.
        client.create().forPath("/small", bytes("cron=0 * * * * ?"));
        queue(
                        requests::sendMulti,
                        "Multi",
                        List.of(read("/small")),
                        ClientRequests.SMALL_LISTING_BYTES,
                        ClientRequests.READ_DATA_BYTES)
                .join();
        int large = OperatorInputs.MAX_CONFIGURATION_BYTES - 1024;
        for (int i = 0; i < 3; i++) {
            // As every writer writes one: with its size record, in one transaction.
            client.transaction()
                    .forOperations(
                            client.transactionOp()
                                    .create()
                                    .forPath("/large" + i + "-size", SizeRecord.of(new byte[large])),
                            client.transactionOp().create().forPath("/large" + i, new byte[large]));
        }

        assertThat(readsOfLargeNodesPerRequest(3, large))
                .as("each configuration near the limit alone in its request: two answer more than a client takes")
                .containsOnly(1L);
    }

    @Test
    void aConfigurationWrittenByHandWithoutASizeRecordIsStillNeverMergedPastWhatOneAnswerCarries() throws Exception {
        int large = OperatorInputs.MAX_CONFIGURATION_BYTES - 1024;
        for (int i = 0; i < 3; i++) {
            client.create().forPath("/large" + i, new byte[large]);
        }
        // One record missing (an older version's job), one empty (created with a structure before the write by hand).
        client.create().forPath("/large1-size", new byte[0]);

        assertThat(readsOfLargeNodesPerRequest(3, large))
                .as("a node without a record read alone")
                .containsOnly(1L);
    }

    @Test
    void configurationsWhoseRecordsSayTheyAreSmallGoTogether() throws Exception {
        for (int i = 0; i < 12; i++) {
            byte[] config = bytes("cron=0 * * * * ?");
            client.transaction()
                    .forOperations(
                            client.transactionOp().create().forPath("/large" + i + "-size", SizeRecord.of(config)),
                            client.transactionOp().create().forPath("/large" + i, config));
        }

        assertThat(readsOfLargeNodesPerRequest(12, "cron=0 * * * * ?".length()))
                .as("sized from their records, not at the most a configuration may hold")
                .containsExactly(12L);
    }

    /**
     * Reads {@code /large<i>} for i in [0, count), each sized from its record {@code /large<i>-size}, while all but one
     * of the reads the lane sends at once are held on their way: the records go together once that one is answered,
     * and the reads they size queue behind it, to be sent as their sizes allow. Counts the large reads of each request
     * that held any, once each read answered its node's {@code bytes}.
     */
    private List<Long> readsOfLargeNodesPerRequest(int count, int bytes) {
        Gated holding = new Gated(requests);
        List<CompletableFuture<MultiAnswer>> held = new ArrayList<>();
        for (int i = 0; i < ClientMultis.READS_ON_THEIR_WAY - 1; i++) {
            held.add(queue(holding, "Multi", List.of(read("/m"))));
        }
        CompletableFuture<Void> release = new CompletableFuture<>();
        held.add(queue(
                (name, ops) -> release.thenCompose(open -> requests.sendMulti(name, ops)),
                "Multi",
                List.of(read("/m"))));
        Gated passing = new Gated(requests);
        passing.open();
        List<CompletableFuture<MultiAnswer>> reads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            reads.add(multis.sendRecorded(
                    passing,
                    "Multi",
                    List.of(read("/large" + i)),
                    ClientRequests.SMALL_LISTING_BYTES,
                    ClientRequests.READ_DATA_BYTES,
                    Map.of(requests.full("/large" + i), requests.full("/large" + i + "-size"))));
        }
        release.complete(null);

        for (CompletableFuture<MultiAnswer> answer : reads) {
            assertThat(answer)
                    .as("answered, never dropped with the connection")
                    .succeedsWithin(Duration.ofSeconds(30))
                    .satisfies(read -> assertThat(
                                    ((OpResult.GetDataResult) read.results().get(0)).getData())
                            .hasSize(bytes));
        }
        holding.open();
        held.forEach(CompletableFuture::join);
        return passing.perRequest(op -> op instanceof Op.GetData && op.getPath().matches(".*/large\\d+$"));
    }

    /**
     * Reads {@code prefix + i + "/config"} for i in [from, to) behind requests held on their way, and counts the
     * reads of each request that read any.
     */
    private List<Long> requestsToRead(String prefix, int from, int to) {
        Gated gated = new Gated(requests);
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>(gated.occupyReads());
        for (int i = from; i < to; i++) {
            answers.add(queue(gated, "Multi", List.of(read(prefix + i + "/config")), 1024, 200 * 1024));
        }
        gated.open();
        answers.forEach(CompletableFuture::join);
        return gated.perRequest(op -> op.getPath().endsWith("/config"));
    }

    @Test
    void readsGoWhileOthersAreOnTheirWayUpToFourAndWhatIsAskedMeanwhileGoesTogether() throws Exception {
        Gated gated = new Gated(requests);
        List<CompletableFuture<MultiAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < ClientMultis.READS_ON_THEIR_WAY + 20; i++) {
            answers.add(queue(gated, "Read", List.of(read("/m/r" + i))));
        }

        assertThat(gated.sent)
                .as("the first four alone, each without waiting for the others; the rest once one is answered")
                .hasSize(ClientMultis.READS_ON_THEIR_WAY)
                .allMatch(ops -> ops.size() == 1);
        gated.open();
        answers.forEach(answer -> assertThat(answer.join().results()).hasSize(1));
        assertThat(gated.requestsWith(op -> true))
                .as("the four, then the twenty asked meanwhile in one or, as the four are answered, a few more")
                .isBetween(5L, 8L);
    }

    /**
     * Sends every request once a gate opens: a lane's requests on their way are held there, and what is asked meanwhile
     * waits in its queue.
     */
    private final class Gated implements ClientMultis.Sender {

        private final CompletableFuture<Void> gate = new CompletableFuture<>();

        private final ClientRequests through;

        private final List<List<Op>> sent = new CopyOnWriteArrayList<>();

        Gated(ClientRequests through) {
            this.through = through;
        }

        @Override
        public CompletableFuture<MultiAnswer> send(String name, List<Op> ops) {
            sent.add(ops);
            return gate.thenCompose(open -> through.sendMulti(name, ops));
        }

        /** As many reads as the lane sends at once, held: what is queued next goes together once they are answered. */
        List<CompletableFuture<MultiAnswer>> occupyReads() {
            List<CompletableFuture<MultiAnswer>> held = new ArrayList<>();
            for (int i = 0; i < ClientMultis.READS_ON_THEIR_WAY; i++) {
                held.add(queue(this, "Multi", List.of(Op.getData(through.full("/m")))));
            }
            return held;
        }

        void open() {
            gate.complete(null);
        }

        /** How many requests held an operation that matches. */
        long requestsWith(Predicate<Op> matching) {
            return perRequest(matching).size();
        }

        /** How many matching operations each request that held any held, in the order sent. */
        List<Long> perRequest(Predicate<Op> matching) {
            return sent.stream()
                    .map(ops -> ops.stream().filter(matching).count())
                    .filter(count -> count > 0)
                    .toList();
        }
    }

    @Test
    void aLostConnectionFailsEveryPartOfTheRequest() throws Exception {
        CompletableFuture<MultiAnswer> held = queue(this.held, "Create", List.of(create("/m/held")));
        CompletableFuture<MultiAnswer> queued = queue(this.held, "Create", List.of(create("/m/queued")));
        server.stop();
        gate.complete(null);

        assertThat(held).failsWithin(java.time.Duration.ofSeconds(20));
        assertThat(queued).failsWithin(java.time.Duration.ofSeconds(20));
    }

    private Op create(String path) {
        return requests.createPersistent(path, new byte[0]);
    }

    private Op read(String path) {
        return Op.getData(requests.full(path));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Queues a multi as {@link ClientRequests#multiAsync} does, through the given sender. */
    private CompletableFuture<MultiAnswer> queue(ClientMultis.Sender through, String name, List<Op> ops) {
        return multis.send(new ClientMultis.Part(through, name, ops, ClientMultis.LEDGER_READS));
    }

    /** Queues reads as {@link ClientRequests#readAsync(String, List, long, long)} does, through the given sender. */
    private CompletableFuture<MultiAnswer> queue(
            ClientMultis.Sender through, String name, List<Op> reads, long unknownListingBytes, long dataBytes) {
        return multis.send(new ClientMultis.Part(
                through, name, reads, new AnswerSizes.Bounds(unknownListingBytes, dataBytes, Map.of())));
    }
}
