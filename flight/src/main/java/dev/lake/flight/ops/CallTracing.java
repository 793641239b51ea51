package dev.lake.flight.ops;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.net.URI;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * W3C trace context for every call: a server span per gRPC call, the child of the client's
 * {@code traceparent} header when it sends a valid one (a root span otherwise; a malformed header
 * is ignored), named {@code <service>/<method>} with the {@code rpc.*} attributes and the final
 * gRPC status. Spans carry no SQL text, no credentials and no principal. With {@link
 * OpenTelemetry#noop()} (the default) nothing is recorded; {@link #otlp} exports over OTLP/HTTP.
 * The span starts and ends on the event loop; the export runs on the SDK's own thread. The
 * request's {@code traceparent} header is then rewritten to name the call's span, so the calls
 * its handlers make to other lake services are its children ({@link TraceParent}).
 */
public final class CallTracing {

  private static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
  private static final AttributeKey<String> RPC_SERVICE = AttributeKey.stringKey("rpc.service");
  private static final AttributeKey<String> RPC_METHOD = AttributeKey.stringKey("rpc.method");
  private static final AttributeKey<Long> GRPC_STATUS =
      AttributeKey.longKey("rpc.grpc.status_code");

  private static final TextMapGetter<MultiMap> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(MultiMap carrier) {
      return carrier.names();
    }

    @Override
    public String get(MultiMap carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private static final TextMapSetter<MultiMap> SETTER = (carrier, key, value) -> {
    if (carrier != null) {
      carrier.set(key, value);
    }
  };

  private final Tracer tracer;
  private final boolean enabled;
  private final Set<String> methods;

  private CallTracing(OpenTelemetry openTelemetry, Set<String> methods) {
    this.tracer = openTelemetry.getTracer("dev.lake.flight");
    this.enabled = openTelemetry != OpenTelemetry.noop();
    this.methods = Set.copyOf(methods);
  }

  /** Traces the calls of {@code methods} (full gRPC paths; others as {@code other}). */
  public static CallTracing create(OpenTelemetry openTelemetry, Set<String> methods) {
    return new CallTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"), methods);
  }

  /**
   * An OpenTelemetry SDK exporting spans in batches to the OTLP/HTTP collector at {@code
   * endpoint} ({@code http://host:4318}; spans go to {@code /v1/traces}) as service {@code
   * serviceName}. The caller closes it (flushing what is buffered).
   *
   * @throws IllegalArgumentException if the endpoint is not an http or https URI with a host
   */
  public static OpenTelemetrySdk otlp(URI endpoint, String serviceName) {
    checkEndpoint(endpoint);
    String base = endpoint.toString().replaceAll("/+$", "");
    OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
        .setEndpoint(base.endsWith("/v1/traces") ? base : base + "/v1/traces").build();
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(
            io.opentelemetry.api.common.Attributes.of(AttributeKey.stringKey("service.name"),
                serviceName))))
        .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
        .build();
    return OpenTelemetrySdk.builder().setTracerProvider(provider).build();
  }

  /**
   * @throws IllegalArgumentException unless {@code endpoint} is an http or https URI with a host
   */
  public static void checkEndpoint(URI endpoint) {
    if (endpoint == null || endpoint.getHost() == null || endpoint.getScheme() == null
        || !(endpoint.getScheme().equals("http") || endpoint.getScheme().equals("https"))) {
      throw new IllegalArgumentException("the OTLP endpoint must be an http:// or https:// URI"
          + " with a host (the collector's OTLP/HTTP port, usually 4318), got '" + endpoint + "'");
    }
  }

  /**
   * Starts the server span of the call {@code request} begins; the returned action ends it with
   * the call's final status, once (run it when the response has ended). Event loop only.
   */
  Runnable start(HttpServerRequest request) {
    if (!enabled) {
      return () -> {};
    }
    Context parent = W3CTraceContextPropagator.getInstance()
        .extract(Context.root(), request.headers(), HEADERS);
    String path = methods.contains(request.path()) ? request.path() : "other";
    int slash = path.lastIndexOf('/');
    String service = slash > 0 ? path.substring(1, slash) : "other";
    String method = slash > 0 ? path.substring(slash + 1) : "other";
    Span span = tracer.spanBuilder(service + "/" + method).setParent(parent)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute(RPC_SYSTEM, "grpc").setAttribute(RPC_SERVICE, service)
        .setAttribute(RPC_METHOD, method).startSpan();
    // The handlers see this call's span as the parent of the calls they make (TraceParent).
    W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), request.headers(),
        SETTER);
    HttpServerResponse response = request.response();
    AtomicBoolean ended = new AtomicBoolean();
    return () -> {
      if (ended.compareAndSet(false, true)) {
        int code = ServerMetrics.statusCode(response);
        if (code >= 0) {
          span.setAttribute(GRPC_STATUS, (long) code);
        }
        if (code != 0) {
          span.setStatus(StatusCode.ERROR, code == -1 ? "no gRPC status (the stream was reset)"
              : ServerMetrics.statusName(code));
        }
        span.end();
      }
    };
  }
}
