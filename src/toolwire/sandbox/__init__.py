"""Commands in a kernel-enforced sandbox: bubblewrap, an egress proxy, and the in-sandbox relay."""
