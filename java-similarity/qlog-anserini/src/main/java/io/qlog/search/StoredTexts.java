package io.qlog.search;

import io.anserini.index.Constants;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.StoredFields;

/**
 * The stored texts of many documents in one call, by Lucene doc number.
 *
 * <p>Reading them one JNI call at a time (the stored-fields reader, the document, its field) costs
 * more than reading them: Recall@K-tokens reads thousands of documents per pass. This reads a whole
 * list in one call and returns it packed in one {@code byte[]}: per document, one kind byte ({@link
 * #RAW} the stored raw document, {@link #CONTENTS} the stored {@code contents} field when there is no
 * raw one, {@link #NONE} neither), the text's UTF-8 length (4 bytes, little-endian) and its UTF-8
 * bytes. Documents are read in the order given; ascending doc numbers read Lucene's compressed
 * stored-field blocks in their order, so callers sort them.
 */
public final class StoredTexts {
  public static final byte RAW = 'r';
  public static final byte CONTENTS = 'c';
  public static final byte NONE = '-';

  private static final Set<String> FIELDS = Set.of(Constants.RAW, Constants.CONTENTS);

  private StoredTexts() {}

  /** The texts of {@code docs} of {@code reader}, packed as the class comment says. */
  public static byte[] packed(IndexReader reader, int[] docs) throws IOException {
    StoredFields fields = reader.storedFields(); // one per call: a StoredFields is not shared between threads
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, docs.length * 256));
    byte[] length = new byte[4];
    for (int doc : docs) {
      Objects.checkIndex(doc, reader.maxDoc());
      Document document = fields.document(doc, FIELDS);
      String raw = document.get(Constants.RAW);
      String text = raw != null ? raw : document.get(Constants.CONTENTS);
      byte kind = raw != null ? RAW : text != null ? CONTENTS : NONE;
      byte[] bytes = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
      if ((long) out.size() + bytes.length + 5 > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("the texts of " + docs.length + " documents do not fit one Java array; ask for fewer");
      }
      out.write(kind);
      ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length);
      out.write(length, 0, 4);
      out.write(bytes, 0, bytes.length);
    }
    return out.toByteArray();
  }
}
