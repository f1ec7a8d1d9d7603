// SPDX-License-Identifier: GPL-2.0-or-later
// JsseServer.java: a minimal Java (JSSE) TLS server for pcaps/make-captures.sh.
// Accepts N connections on 127.0.0.3:PORT (the server's address in
// make-captures.sh), one after the other, completes the handshake if the
// client lets it, answers one line and closes.
//
//   java pcaps/JsseServer.java PORT KEYSTORE.p12 PASSWORD N [PROTOCOLS]
//
// PROTOCOLS (comma-separated, e.g. TLSv1.2,TLSv1.1) limits the versions the
// server enables; by default JSSE's own (Java 17: TLSv1.3, TLSv1.2).
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

public class JsseServer {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        char[] password = args[2].toCharArray();
        int connections = Integer.parseInt(args[3]);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(args[1])) {
            ks.load(in, password);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
        kmf.init(ks, password);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        try (SSLServerSocket server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(
                 port, 1, InetAddress.getByName("127.0.0.3"))) {
            if (args.length > 4) {
                server.setEnabledProtocols(args[4].split(","));
            }
            System.out.println("listening on " + port);
            for (int i = 0; i < connections; i++) {
                try (SSLSocket s = (SSLSocket) server.accept()) {
                    s.setSoTimeout(5000);
                    s.startHandshake();
                    System.out.println("connection " + i + ": " + s.getSession().getProtocol());
                    OutputStream out = s.getOutputStream();
                    out.write("hello\n".getBytes("US-ASCII"));
                    out.flush();
                    InputStream in = s.getInputStream();
                    in.read();
                } catch (Exception e) {
                    System.out.println("connection " + i + ": " + e);
                }
            }
        }
    }
}
