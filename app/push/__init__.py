"""The local push-notification receiver (loopback webhook for A2A push configs). Qt-free."""
