"""The RFID table reader: protocol codec, transports, delivery, deck registry, simulator."""
