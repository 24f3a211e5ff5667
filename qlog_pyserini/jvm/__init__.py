"""The JVM bridge: finding the JDK and Pyserini's jar (:mod:`.toolchain`), building our jar
(:mod:`.jar`), and putting it on the classpath and starting the JVM (:mod:`.bridge`)."""
