package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.testing.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.storage.internals.log.TransactionIndex;
import org.apache.kafka.storage.internals.log.TxnIndexSearchResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our {@code .txnindex} is Kafka 4.4's {@code TransactionIndex}, byte for byte. */
class TxnIndexKafkaFormatTest {
    @TempDir Path tmp;

    @Test
    void bytesEqualKafkasAndSearchesAgree() {
        Property.forAll(
                30,
                random -> {
                    long base = random.nextInt(1000);
                    int n = random.nextInt(20);
                    List<AbortedTxn> entries = new ArrayList<>();
                    long last = base;
                    for (int i = 0; i < n; i++) {
                        last += 1 + random.nextInt(50);
                        long first = Math.max(0, last - 1 - random.nextInt(100));
                        long lso = random.nextBoolean() ? last + 1 : first + random.nextInt(10);
                        entries.add(new AbortedTxn(random.nextInt(5), first, last, lso));
                    }
                    Path dir = Files.createTempDirectory(tmp, "t");
                    Path ours = dir.resolve("ours.txnindex");
                    Path theirs = dir.resolve("theirs.txnindex");
                    TxnIndex idx = TxnIndex.empty(ours);
                    try (TransactionIndex k = new TransactionIndex(base, theirs.toFile())) {
                        for (AbortedTxn a : entries) {
                            idx.append(a);
                            k.append(
                                    new org.apache.kafka.common.message.AbortedTxn()
                                            .setProducerId(a.producerId())
                                            .setFirstOffset(a.firstOffset())
                                            .setLastOffset(a.lastOffset())
                                            .setLastStableOffset(a.lastStableOffset()));
                        }
                        k.flush();
                        if (n == 0) {
                            assertThat(Files.exists(ours)).isFalse();
                            return;
                        }
                        assertThat(Files.readAllBytes(ours)).isEqualTo(Files.readAllBytes(theirs));
                        // Kafka reads ours, we read Kafka's
                        TxnIndex back = TxnIndex.load(theirs, base, last + 1);
                        assertThat(back.entries()).isEqualTo(entries);
                        long from = base + random.nextInt((int) (last - base + 2));
                        long upTo = from + random.nextInt(200);
                        TxnIndexSearchResult r = k.collectAbortedTxns(from, upTo);
                        List<AbortedTxn> got = new ArrayList<>();
                        boolean complete = idx.collect(from, upTo, got);
                        assertThat(complete).isEqualTo(r.isComplete());
                        assertThat(got)
                                .containsExactlyElementsOf(
                                        r.abortedTransactions().stream()
                                                .map(
                                                        a ->
                                                                new AbortedTxn(
                                                                        a.producerId(),
                                                                        a.firstOffset(),
                                                                        a.lastOffset(),
                                                                        a.lastStableOffset()))
                                                .toList());
                        long cut = base + random.nextInt((int) (last - base + 2));
                        idx.truncateTo(cut);
                        k.truncateTo(cut);
                        k.flush();
                        byte[] kb = Files.exists(theirs) ? Files.readAllBytes(theirs) : new byte[0];
                        byte[] ob = Files.exists(ours) ? Files.readAllBytes(ours) : new byte[0];
                        assertThat(ob).isEqualTo(kb);
                    }
                });
    }

    @Test
    void tornOrUnorderedFileIsCorrupt() throws Exception {
        Path f = tmp.resolve("x.txnindex");
        TxnIndex.write(f, List.of(new AbortedTxn(1, 0, 5, 6), new AbortedTxn(1, 7, 9, 10)));
        byte[] b = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(b, b.length - 3));
        assertThatThrownBy(() -> TxnIndex.load(f, 0, 10)).isInstanceOf(CorruptIndexException.class);
        TxnIndex.write(f, List.of(new AbortedTxn(1, 0, 9, 10), new AbortedTxn(1, 7, 5, 10)));
        assertThatThrownBy(() -> TxnIndex.load(f, 0, 10)).isInstanceOf(CorruptIndexException.class);
        // a marker outside the segment
        TxnIndex.write(f, List.of(new AbortedTxn(1, 0, 12, 13)));
        assertThatThrownBy(() -> TxnIndex.load(f, 0, 10)).isInstanceOf(CorruptIndexException.class);
    }
}
