/* protocol.c - placeholder until the instrumentation layer lands. */
